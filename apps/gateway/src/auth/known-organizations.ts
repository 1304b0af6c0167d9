import { LRUCache } from 'lru-cache';

// A JWT is signed by whoever issues users their tokens, not by us, so the
// organizations it names may not exist here (deleted, or a mistake in the
// issuer). Acting for one would reach the database as a foreign-key error on
// the first write. Existence is cached: organizations are never deleted
// through the API, so a positive answer can be kept for long; a negative one
// only briefly, so a newly created organization is usable at once.

const KNOWN_TTL_MS = 10 * 60_000;
const UNKNOWN_TTL_MS = 5_000;

export class KnownOrganizations {
  private readonly cache = new LRUCache<string, boolean>({ max: 10_000 });
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly exists: (organizationId: string) => Promise<boolean>) {}

  async has(organizationId: string): Promise<boolean> {
    const cached = this.cache.get(organizationId);
    if (cached !== undefined) return cached;
    let pending = this.inFlight.get(organizationId);
    if (!pending) {
      pending = this.exists(organizationId).then((found) => {
        this.cache.set(organizationId, found, { ttl: found ? KNOWN_TTL_MS : UNKNOWN_TTL_MS });
        return found;
      });
      this.inFlight.set(organizationId, pending);
      const forget = () => this.inFlight.delete(organizationId);
      pending.then(forget, forget);
    }
    return pending;
  }
}
