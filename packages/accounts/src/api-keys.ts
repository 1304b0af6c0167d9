import { isUniqueViolation, type Db, type Prisma } from '@weft/db';
import { NotFoundError } from '@weft/errors';
import { generateApiKey } from './api-key-format';

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

/** What authenticating a key needs of its row, found by the key's public prefix. */
export interface ApiKeyRow {
  id: string;
  organizationId: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  revokedAt: Date | null;
}

export async function findApiKey(db: Db, prefix: string): Promise<ApiKeyRow | null> {
  return db.prisma.apiKey.findUnique({
    where: { prefix },
    select: { id: true, organizationId: true, hash: true, revokedAt: true },
  });
}

/**
 * Marks the key revoked, keeping the first `revoked_at` when it already is;
 * answers the key's prefix, or 404 for an unknown id.
 */
export async function markApiKeyRevoked(db: Db, keyId: string): Promise<{ prefix: string }> {
  const key = await db.prisma.apiKey.findUnique({ where: { id: keyId }, select: { prefix: true } });
  if (!key) throw new NotFoundError('API key');
  await db.prisma.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return key;
}
