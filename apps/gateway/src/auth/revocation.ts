import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { subscribeToInvalidations, type InvalidationSubscription } from '../cache/invalidation-channel';

// Revocation reaches every gateway instance through one Redis channel: the
// revoking instance publishes the key's public prefix, every instance's
// authenticator evicts it from its in-process cache.

export const revocationChannel = (redisPrefix: string) => `${redisPrefix}:apikey-revoked`;

/** Tells every instance (this one included) to forget the key with this prefix. */
export async function publishRevocation(redis: Redis, redisPrefix: string, prefix: string): Promise<void> {
  await redis.publish(revocationChannel(redisPrefix), prefix);
}

export interface RevocationListener {
  onRevoked(prefix: string): void;
  onLive(): void;
  onBlind(): void;
}

export function subscribeToRevocations(
  redis: Redis,
  redisPrefix: string,
  listener: RevocationListener,
  logger: Logger,
): InvalidationSubscription {
  return subscribeToInvalidations(
    redis,
    revocationChannel(redisPrefix),
    { onMessage: listener.onRevoked, onLive: listener.onLive, onBlind: listener.onBlind },
    logger,
  );
}
