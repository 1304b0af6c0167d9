import type { Redis } from 'ioredis';

export interface HeartbeatOptions {
  redis: Redis;
  prefix: string;
  workerId: string;
  intervalMs?: number;
}

/**
 * Each worker process refreshes a key with a TTL of three intervals, so
 * `liveWorkers()` (and the "no worker heartbeat" alert) sees a crashed worker
 * disappear without any cleanup on its side.
 */
export function startHeartbeat({ redis, prefix, workerId, intervalMs = 5000 }: HeartbeatOptions) {
  const key = `${prefix}:workers:${workerId}`;
  const beat = () =>
    redis
      .set(key, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }), 'PX', intervalMs * 3)
      .catch(() => undefined);
  void beat();
  const timer = setInterval(() => void beat(), intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.del(key).catch(() => undefined);
    },
  };
}

/** Ids of the worker processes whose heartbeat has not expired. */
export async function liveWorkers(redis: Redis, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:workers:*`, 'COUNT', 100);
    cursor = next;
    for (const k of keys) ids.push(k.slice(`${prefix}:workers:`.length));
  } while (cursor !== '0');
  return ids;
}
