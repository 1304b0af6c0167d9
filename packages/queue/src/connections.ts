import { Redis, type RedisOptions } from 'ioredis';

/**
 * Producers (the gateway) fail fast when Redis is away, so a request errors
 * instead of hanging; a run already committed is re-enqueued by the workers'
 * reconciler (docs/adr/0006-run-execution.md).
 */
export function createProducerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, ...options });
}

/**
 * How long a BullMQ worker waits before it retries recording a finished job
 * after a connection error (its `runRetryDelay`). BullMQ's default, 15 s,
 * keeps the job's slot busy and a SIGTERM waiting that long after every Redis
 * blip; one second is ample for a reconnect and costs nothing when Redis is fine.
 */
export const WORKER_RUN_RETRY_DELAY_MS = 1_000;

/** Workers wait for Redis forever: BullMQ requires `maxRetriesPerRequest: null` for blocking calls. */
export function createWorkerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, ...options });
}
