import { Redis, type RedisOptions } from 'ioredis';

/**
 * Producers (the gateway) fail fast when Redis is away, so a request errors
 * instead of hanging; the database outbox/sweeper re-enqueues later.
 */
export function createProducerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, ...options });
}

/** Workers wait for Redis forever: BullMQ requires `maxRetriesPerRequest: null` for blocking calls. */
export function createWorkerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, ...options });
}
