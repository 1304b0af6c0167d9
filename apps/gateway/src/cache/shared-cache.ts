import { isRedisUnavailable } from '@weft/queue';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import { InvalidatedCache, type Loaded } from './invalidated-cache';
import { subscribeToInvalidations } from './invalidation-channel';

// An InvalidatedCache wired to a Redis channel of its own: the instance that
// changes a row evicts it and publishes its key; every other instance's
// subscriber evicts it too, and the cache keeps entries only briefly while
// that subscriber is not live.

export interface SharedCache<V> {
  get(key: string): Promise<V | undefined>;
  /** Call after committing a change: this instance forgets `key` now, every other one when the message arrives. */
  changed(key: string): Promise<void>;
  whenLive(): Promise<void>;
  close(): Promise<void>;
}

export interface SharedCacheOptions<V> {
  redis: RedisClient;
  channel: string;
  /** How long a value is trusted while messages are received; 0 disables caching. */
  ttlMs: number;
  load(key: string): Promise<Loaded<V>>;
  logger: Logger;
}

/** A cache that follows a channel: its subscription, and when it was first confirmed. */
export interface FollowedChannel {
  /** Resolves once the subscription is first confirmed (tests wait for it before relying on messages). */
  whenLive(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Subscribes `cache` to `channel`: every message evicts the key it names, and
 * the cache knows whether messages can be missed (InvalidatedCache.setLive).
 */
export function followInvalidations(
  cache: Pick<InvalidatedCache<object>, 'evict' | 'setLive'>,
  redis: RedisClient,
  channel: string,
  logger: Logger,
): FollowedChannel {
  let markLive: () => void = () => undefined;
  const live = new Promise<void>((resolve) => (markLive = resolve));
  const subscription = subscribeToInvalidations(
    redis,
    channel,
    {
      onMessage: (key) => cache.evict(key),
      onLive: () => {
        cache.setLive(true);
        markLive();
      },
      onBlind: () => cache.setLive(false),
    },
    logger,
  );
  return { whenLive: () => live, close: () => subscription.close() };
}

export function createSharedCache<V extends object>({
  redis,
  channel,
  ttlMs,
  load,
  logger,
}: SharedCacheOptions<V>): SharedCache<V> {
  const cache = new InvalidatedCache<V>({ ttlMs, load });
  const followed = followInvalidations(cache, redis, channel, logger);
  return {
    get: (key) => cache.get(key),
    async changed(key) {
      cache.evict(key);
      try {
        await redis.publish(channel, key);
      } catch (err) {
        // The change is committed: failing its request would invite a retry
        // that repeats it (a second agent). Instances that miss the message
        // drop the entry when its TTL ends, sooner while they are blind too.
        if (!isRedisUnavailable(err)) throw err;
        logger.warn(
          { err: (err as Error).message, channel, key },
          'invalidation not published: RedisClient unavailable',
        );
      }
    },
    whenLive: () => followed.whenLive(),
    close: () => followed.close(),
  };
}
