import { waitFor } from '@weft/testing';
import type { ApiKeyRow } from '@weft/accounts';
import { ApiKeyCache } from './api-key-cache';

const row = (over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id: 'key-1',
  organizationId: 'org-1',
  hash: 'ab'.repeat(32),
  revokedAt: null,
  ...over,
});

/** A loader whose answers the test releases by hand, to stage races. */
function manualLoader() {
  const calls: { prefix: string; resolve(r: ApiKeyRow | null): void }[] = [];
  const load = jest.fn((prefix: string) => new Promise<ApiKeyRow | null>((resolve) => calls.push({ prefix, resolve })));
  return { load, calls };
}

/**
 * Waits until `cache` reads `prefix` again: well before the full TTL (60 s in
 * these tests), which waitFor's 10 s stand for. The short TTLs are a second,
 * not milliseconds, so that two reads in a row fall within them however busy
 * the machine.
 */
async function forgotten(cache: ApiKeyCache, prefix: string, load: jest.Mock) {
  await waitFor(`${prefix} to be read again`, async () => {
    await cache.get(prefix);
    return load.mock.calls.length === 2;
  });
  expect(load).toHaveBeenCalledTimes(2);
}

describe('ApiKeyCache', () => {
  it('reads a prefix once and then serves it from memory', async () => {
    const load = jest.fn(async () => row());
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    cache.setLive(true);
    const first = await cache.get('p1');
    expect(first).toMatchObject({ id: 'key-1', organizationId: 'org-1' });
    expect(first?.hash).toEqual(Buffer.from('ab'.repeat(32), 'hex'));
    await cache.get('p1');
    await cache.get('p1');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('shares one database read among concurrent misses', async () => {
    const { load, calls } = manualLoader();
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    const all = Promise.all([cache.get('p1'), cache.get('p1'), cache.get('p1')]);
    expect(load).toHaveBeenCalledTimes(1);
    calls[0]!.resolve(row());
    expect((await all).every((e) => e?.id === 'key-1')).toBe(true);
  });

  it('treats revoked keys as unusable and remembers that', async () => {
    const load = jest.fn(async () => row({ revokedAt: new Date() }));
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    expect(await cache.get('p1')).toBeUndefined();
    expect(await cache.get('p1')).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('remembers unknown prefixes only briefly', async () => {
    const load = jest.fn(async () => null);
    const cache = new ApiKeyCache({ load, ttlMs: 60_000, negativeTtlMs: 1_000 });
    await cache.get('nope');
    await cache.get('nope');
    expect(load).toHaveBeenCalledTimes(1);
    await forgotten(cache, 'nope', load);
  });

  it('keeps unknown prefixes in a bounded cache of their own, so they cannot push valid keys out', async () => {
    const load = jest.fn(async (prefix: string) => (prefix === 'good' ? row() : null));
    const cache = new ApiKeyCache({ load, ttlMs: 60_000, max: 10, negativeMax: 5 });
    cache.setLive(true);
    await cache.get('good');
    for (let i = 0; i < 100; i++) await cache.get(`random-${i}`);
    await cache.get('good');
    expect(load.mock.calls.filter(([p]) => p === 'good')).toHaveLength(1);
  });

  it('evicts a revoked key at once', async () => {
    let revoked = false;
    const load = jest.fn(async () => row({ revokedAt: revoked ? new Date() : null }));
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    cache.setLive(true);
    expect(await cache.get('p1')).toBeDefined();
    revoked = true;
    cache.evict('p1');
    expect(await cache.get('p1')).toBeUndefined();
  });

  it('does not cache a read that began before an eviction (the revocation race)', async () => {
    const { load, calls } = manualLoader();
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    cache.setLive(true);
    const before = cache.get('p1'); // reads the row while it is still valid...
    cache.evict('p1'); // ...the revocation message arrives...
    const after = cache.get('p1'); // ...a request after it must not join the old read
    expect(load).toHaveBeenCalledTimes(2);
    calls[0]!.resolve(row());
    calls[1]!.resolve(row({ revokedAt: new Date() }));
    expect(await before).toBeDefined(); // concurrent with the revocation: may pass
    expect(await after).toBeUndefined();
    expect(await cache.get('p1')).toBeUndefined(); // and the stale read was not cached
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('forgets everything when revocations may have been missed', async () => {
    const load = jest.fn(async () => row());
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    cache.setLive(true);
    await cache.get('p1');
    cache.setLive(false); // subscriber disconnected
    await cache.get('p1');
    cache.setLive(true); // re-subscribed
    await cache.get('p1');
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('trusts entries only briefly while not receiving revocations', async () => {
    const load = jest.fn(async () => row());
    const cache = new ApiKeyCache({ load, ttlMs: 60_000, blindTtlMs: 1_000 });
    await cache.get('p1'); // never live yet
    await cache.get('p1');
    expect(load).toHaveBeenCalledTimes(1);
    await forgotten(cache, 'p1', load);
  });

  it('caches nothing with a TTL of 0', async () => {
    const load = jest.fn(async () => row());
    const cache = new ApiKeyCache({ load, ttlMs: 0 });
    cache.setLive(true);
    await cache.get('p1');
    await cache.get('p1');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not cache a failed read', async () => {
    const load = jest.fn().mockRejectedValueOnce(new Error('db down')).mockResolvedValue(row());
    const cache = new ApiKeyCache({ load, ttlMs: 60_000 });
    await expect(cache.get('p1')).rejects.toThrow('db down');
    expect(await cache.get('p1')).toBeDefined();
  });
});
