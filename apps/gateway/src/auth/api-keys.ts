import { isUniqueViolation, type Db, type Prisma } from '@weft/db';
import { NotFoundError, ServiceUnavailableError } from '@weft/errors';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import { generateApiKey } from './api-key-format';
import { publishRevocation } from './revocation';

// Use cases of API keys: issue (inside the caller's transaction) and revoke.

export interface IssuedApiKey {
  id: string;
  /** The full key: returned once to the caller, never stored or logged. */
  apiKey: string;
}

/** Writes a new key for the organization; only its prefix and hash reach the database. */
export async function issueApiKey(
  tx: Prisma.TransactionClient,
  organizationId: string,
  name: string | undefined,
): Promise<IssuedApiKey> {
  const generated = generateApiKey();
  const row = await tx.apiKey.create({
    data: { organizationId, name: name ?? null, prefix: generated.prefix, hash: generated.hash },
    select: { id: true },
  });
  return { id: row.id, apiKey: generated.key };
}

/**
 * Runs `work` again when it failed on a prefix collision. With ~59 random bits
 * per prefix that does not happen in practice, but the unique index is what
 * guarantees it, so the failure is handled rather than assumed away. `work` must
 * be a whole transaction: after a failed statement PostgreSQL aborts it.
 */
export async function retryOnPrefixCollision<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isUniqueViolation(err, ['prefix'])) throw err;
    }
  }
}

export async function createApiKey(db: Db, organizationId: string, name: string | undefined): Promise<IssuedApiKey> {
  return retryOnPrefixCollision(() =>
    db.prisma.$transaction(async (tx) => {
      const org = await tx.organization.findUnique({ where: { id: organizationId }, select: { id: true } });
      if (!org) throw new NotFoundError('Organization');
      return issueApiKey(tx, organizationId, name);
    }),
  );
}

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
  const key = await deps.db.prisma.apiKey.findUnique({ where: { id: keyId }, select: { prefix: true } });
  if (!key) throw new NotFoundError('API key');
  await deps.db.prisma.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
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
