import { scanKeys, type RedisClient } from './connections';
import { shardPrefixes } from './queue-shards';

export interface HeartbeatOptions {
  redis: RedisClient;
  prefix: string;
  workerId: string;
  intervalMs?: number;
  /**
   * The light lane's shards (REDIS_QUEUE_SHARDS): on a cluster the key is
   * also written under each shard's prefix, so that the hand-back script of a
   * shard's queue reads it in the queue's own slot (dead-worker-jobs.ts).
   */
  shards?: number;
}

export interface Heartbeat {
  /** Stops beating and removes the key: the process is leaving. */
  stop(): Promise<void>;
}

/** What a heartbeat key holds. */
export interface HeartbeatValue {
  pid: number;
  at: string;
  /** How often this worker beats: how stale its key may be while it lives (dead-worker-jobs.ts). */
  intervalMs: number;
}

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5000;

export const heartbeatKey = (prefix: string, workerId: string) => `${prefix}:workers:${workerId}`;

/**
 * The name a worker process gives the Redis connection its heartbeat goes
 * through (ioredis `connectionName`): a key not refreshed whose connection is
 * also gone from CLIENT LIST belongs to a dead process, whatever its TTL says.
 */
export const workerConnectionName = (prefix: string, workerId: string) => `${prefix}:worker:${workerId}`;

/**
 * Each worker process refreshes a key with a TTL of three intervals, so
 * `liveWorkers()` (and the "no worker heartbeat" alert) sees a crashed worker
 * disappear without any cleanup on its side. Resolves once the first beat is
 * written, and throws when it cannot be: other workers hand back the jobs of a
 * worker without a heartbeat, so none may be taken before it exists.
 */
export async function startHeartbeat({
  redis,
  prefix,
  workerId,
  intervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS,
  shards = 1,
}: HeartbeatOptions): Promise<Heartbeat> {
  const keys = shardPrefixes(prefix, shards).map((p) => heartbeatKey(p, workerId));
  const beat = async () => {
    const value = JSON.stringify({
      pid: process.pid,
      at: new Date().toISOString(),
      intervalMs,
    } satisfies HeartbeatValue);
    // One SET per key: on a cluster they are in different slots, which one pipeline cannot span.
    await Promise.all(keys.map((key) => redis.set(key, value, 'PX', intervalMs * 3)));
  };
  await beat();
  const timer = setInterval(() => void beat().catch(() => undefined), intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(keys.map((key) => redis.del(key).catch(() => undefined)));
    },
  };
}

/** Ids of the worker processes whose heartbeat has not expired. */
export async function liveWorkers(redis: RedisClient, prefix: string): Promise<string[]> {
  const keys = await scanKeys(redis, `${prefix}:workers:*`);
  return keys.map((k) => k.slice(`${prefix}:workers:`.length));
}
