import { markApiKeyRevoked } from '@weft/accounts';
import type { Db } from '@weft/db';
import { ServiceUnavailableError } from '@weft/errors';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import { publishRevocation } from './revocation';

export interface RevokeDeps {
  db: Db;
  redis: RedisClient;
  redisPrefix: string;
  logger: Logger;
  /** Evicts the key from this process's cache at once. */
  forgetLocally?: (prefix: string) => void;
}

/**
 * Marks the key revoked and tells every gateway instance to forget it.
 *
 * Idempotent: revoking a revoked key answers like the first time (and keeps the
 * original `revoked_at`). It also publishes again, so an operator whose first
 * call failed to reach Redis can simply repeat it. Unknown ids are 404.
 */
export async function revokeApiKey(deps: RevokeDeps, keyId: string): Promise<void> {
  const key = await markApiKeyRevoked(deps.db, keyId);
  deps.forgetLocally?.(key.prefix);
  try {
    await publishRevocation(deps.redis, deps.redisPrefix, key.prefix);
  } catch (err) {
    // The database says revoked; other instances would only notice when their cache entry expires.
    deps.logger.error({ err: (err as Error).message, keyPrefix: key.prefix }, 'revocation not published');
    throw new ServiceUnavailableError(
      'The key is revoked, but other gateway instances could not be told yet; repeat the request to retry',
    );
  }
}
