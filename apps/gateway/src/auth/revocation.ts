import type { RedisClient } from '@weft/queue';

// Revocation reaches every gateway instance through one Redis channel: the
// revoking instance publishes the key's public prefix, every instance's
// authenticator evicts it from its in-process cache (followInvalidations in
// cache/shared-cache.ts).

export const revocationChannel = (redisPrefix: string) => `${redisPrefix}:apikey-revoked`;

/** Tells every instance (this one included) to forget the key with this prefix. */
export async function publishRevocation(redis: RedisClient, redisPrefix: string, prefix: string): Promise<void> {
  await redis.publish(revocationChannel(redisPrefix), prefix);
}
