import type { ApiKeyRow } from '@weft/accounts';
import { InvalidatedCache } from '../cache/invalidated-cache';

// API key rows cached by their public prefix, so that an authenticated request
// costs a hash and a map look-up instead of a database round trip
// (an un-batched Prisma query is ~225 µs of CPU). A key
// revoked elsewhere is evicted by a Redis message (revocation.ts); the
// invariants are those of InvalidatedCache. A revoked key is remembered as
// unusable for the full TTL: revocation is final.

export interface CachedApiKey {
  id: string;
  organizationId: string;
  hash: Buffer;
}

export interface ApiKeyCacheOptions {
  /** Reads the row for a prefix; null when there is none. */
  load(prefix: string): Promise<ApiKeyRow | null>;
  /** How long a verified key is trusted; 0 disables caching. */
  ttlMs: number;
  /** TTL used while revocation messages may be missed (subscriber not live). */
  blindTtlMs?: number;
  /** How long an unknown prefix is remembered. */
  negativeTtlMs?: number;
  max?: number;
  negativeMax?: number;
}

export class ApiKeyCache extends InvalidatedCache<CachedApiKey> {
  constructor(options: ApiKeyCacheOptions) {
    super({
      ...options,
      load: async (prefix) => {
        const row = await options.load(prefix);
        if (!row) return { missing: 'for-now' };
        if (row.revokedAt) return { missing: 'final' };
        return { value: { id: row.id, organizationId: row.organizationId, hash: Buffer.from(row.hash, 'hex') } };
      },
    });
  }
}
