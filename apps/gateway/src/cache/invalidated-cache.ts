import { LRUCache } from 'lru-cache';

// A read-through, in-process cache whose entries are dropped by invalidation
// messages from other gateway instances (see invalidation-channel.ts), so a
// hot read costs a map look-up instead of a database round trip.
//
// Invariants:
// - A database read that started before an eviction is never cached after it:
//   every eviction bumps `epoch`, and a read caches its result only if the epoch
//   is unchanged. Without this, a read of the old row finishing just after the
//   eviction would re-cache stale data for a whole TTL.
// - Concurrent misses for one key share one read; an eviction also detaches
//   that shared read, so a request arriving after the eviction reads afresh.
// - While invalidation messages may be missed (subscriber not live), entries
//   are kept only `blindTtlMs`; going live or blind clears everything.
// - Misses are remembered in a separate, bounded cache, so that requests for
//   random keys cannot push real entries out.

/** What a load found: a value, or nothing — `final` when it can never appear (e.g. a revoked key). */
export type Loaded<V> = { value: V } | { missing: 'final' | 'for-now' };

export interface InvalidatedCacheOptions<V> {
  load(key: string): Promise<Loaded<V>>;
  /** How long a value is trusted while invalidations are received; 0 disables caching. */
  ttlMs: number;
  /** TTL while invalidation messages may be missed. */
  blindTtlMs?: number;
  /** How long a `for-now` miss is remembered (a `final` one: `ttlMs`). */
  negativeTtlMs?: number;
  max?: number;
  negativeMax?: number;
}

export class InvalidatedCache<V extends object> {
  private readonly values: LRUCache<string, V>;
  private readonly misses: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<V | undefined>>();
  private epoch = 0;
  private live = false;
  private readonly ttlMs: number;
  private readonly blindTtlMs: number;
  private readonly negativeTtlMs: number;

  constructor(private readonly options: InvalidatedCacheOptions<V>) {
    this.ttlMs = options.ttlMs;
    this.blindTtlMs = Math.min(options.ttlMs, options.blindTtlMs ?? 1000);
    this.negativeTtlMs = Math.min(options.ttlMs, options.negativeTtlMs ?? 5000);
    // lru-cache treats ttl 0 as "forever", so with caching disabled nothing is ever set (see store()).
    this.values = new LRUCache({ max: options.max ?? 50_000, ttl: Math.max(1, this.ttlMs) });
    this.misses = new LRUCache({ max: options.negativeMax ?? 10_000, ttl: Math.max(1, this.ttlMs) });
  }

  /** The value for `key`, or undefined when there is none. */
  async get(key: string): Promise<V | undefined> {
    const hit = this.values.get(key);
    if (hit) return hit;
    if (this.misses.has(key)) return undefined;
    const pending = this.inFlight.get(key);
    if (pending) return pending;

    const epoch = this.epoch;
    const read = this.options.load(key).then((loaded) => {
      if (epoch === this.epoch) this.store(key, loaded);
      return 'value' in loaded ? loaded.value : undefined;
    });
    this.inFlight.set(key, read);
    const forget = () => {
      if (this.inFlight.get(key) === read) this.inFlight.delete(key);
    };
    read.then(forget, forget);
    return read;
  }

  private store(key: string, loaded: Loaded<V>) {
    if (this.ttlMs <= 0) return;
    if ('value' in loaded) this.values.set(key, loaded.value, { ttl: this.live ? this.ttlMs : this.blindTtlMs });
    else this.misses.set(key, true, { ttl: loaded.missing === 'final' ? this.ttlMs : this.negativeTtlMs });
  }

  /** Forgets one key (it changed). */
  evict(key: string): void {
    this.epoch++;
    this.values.delete(key);
    this.misses.delete(key);
    this.inFlight.delete(key);
  }

  /** Forgets everything: invalidations may have been missed. */
  clear(): void {
    this.epoch++;
    this.values.clear();
    this.misses.clear();
    this.inFlight.clear();
  }

  /** Whether invalidation messages are being received; while not, entries live only `blindTtlMs`. */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }
}
