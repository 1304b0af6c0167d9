import { LRUCache } from 'lru-cache';

// In-process cache of API key rows, keyed by the public prefix, so that an
// authenticated request costs a hash and a map look-up instead of a database
// round trip (performance-facts.md: an un-batched Prisma query is ~225 µs of CPU).
//
// Invariants:
// - A key revoked elsewhere is evicted by a Redis message (see revocation.ts).
// - A database read that started before an eviction is never cached after it:
//   every eviction bumps `epoch`, and a read caches its result only if the epoch
//   is unchanged. Without this, a read of the pre-revocation row finishing just
//   after the eviction would re-cache the revoked key for a whole TTL.
// - Concurrent misses for one prefix share one read; an eviction also detaches
//   that shared read, so a request arriving after the eviction reads afresh.
// - Unknown prefixes are remembered briefly in a separate, bounded cache, so
//   that requests spraying random keys cannot push valid keys out.

export interface ApiKeyRow {
  id: string;
  organizationId: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  revokedAt: Date | null;
}

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

export class ApiKeyCache {
  private readonly known: LRUCache<string, CachedApiKey>;
  /** Prefixes with no usable key: unknown (briefly) or revoked (for the full TTL; revocation is final). */
  private readonly unusable: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<CachedApiKey | undefined>>();
  private epoch = 0;
  private live = false;
  private readonly ttlMs: number;
  private readonly blindTtlMs: number;
  private readonly negativeTtlMs: number;

  constructor(private readonly options: ApiKeyCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.blindTtlMs = Math.min(options.ttlMs, options.blindTtlMs ?? 1000);
    this.negativeTtlMs = Math.min(options.ttlMs, options.negativeTtlMs ?? 5000);
    // lru-cache treats ttl 0 as "forever", so with caching disabled nothing is ever set (see store()).
    this.known = new LRUCache({ max: options.max ?? 50_000, ttl: Math.max(1, this.ttlMs) });
    this.unusable = new LRUCache({ max: options.negativeMax ?? 10_000, ttl: Math.max(1, this.ttlMs) });
  }

  /** The usable key with this prefix, or undefined when there is none (unknown or revoked). */
  async get(prefix: string): Promise<CachedApiKey | undefined> {
    const hit = this.known.get(prefix);
    if (hit) return hit;
    if (this.unusable.has(prefix)) return undefined;
    const pending = this.inFlight.get(prefix);
    if (pending) return pending;

    const epoch = this.epoch;
    const read = this.options.load(prefix).then((row) => {
      const entry =
        row && !row.revokedAt
          ? { id: row.id, organizationId: row.organizationId, hash: Buffer.from(row.hash, 'hex') }
          : undefined;
      if (epoch === this.epoch) this.store(prefix, row, entry);
      return entry;
    });
    this.inFlight.set(prefix, read);
    const forget = () => {
      if (this.inFlight.get(prefix) === read) this.inFlight.delete(prefix);
    };
    read.then(forget, forget);
    return read;
  }

  private store(prefix: string, row: ApiKeyRow | null, entry: CachedApiKey | undefined) {
    if (this.ttlMs <= 0) return;
    if (entry) this.known.set(prefix, entry, { ttl: this.live ? this.ttlMs : this.blindTtlMs });
    else if (row) this.unusable.set(prefix, true, { ttl: this.ttlMs });
    else this.unusable.set(prefix, true, { ttl: this.negativeTtlMs });
  }

  /** Forgets one key (it was revoked). */
  evict(prefix: string): void {
    this.epoch++;
    this.known.delete(prefix);
    this.unusable.delete(prefix);
    this.inFlight.delete(prefix);
  }

  /** Forgets everything: revocations may have been missed. */
  clear(): void {
    this.epoch++;
    this.known.clear();
    this.unusable.clear();
    this.inFlight.clear();
  }

  /** Whether revocation messages are being received; while not, entries live only `blindTtlMs`. */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }
}
