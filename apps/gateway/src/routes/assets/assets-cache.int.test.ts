import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { pngBytes, upload } from '../../testing/asset-fixtures';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

// What a download needs of an asset is served from each instance's memory
// (assets/asset-files.ts). What users depend on: a delete made through one
// instance stops downloads through every other at once, and the access rules
// still apply to the cached row for every caller.

let gw: TestGateway;
let sibling: TestGateway;
let owner: { id: string; apiKey: string };
let stranger: { id: string; apiKey: string };
let png: Buffer;

beforeAll(async () => {
  gw = await startTestGateway();
  sibling = await gw.startSibling();
  await Promise.all([gw.deps.assetFiles.whenLive(), sibling.deps.assetFiles.whenLive()]);
  owner = await gw.createOrg('Asset cache owner');
  stranger = await gw.createOrg('Asset cache stranger');
  png = await pngBytes(40, 30);
});
afterAll(async () => {
  await sibling.close();
  await gw.close();
});

const download = (gateway: TestGateway, apiKey: string, id: string) =>
  request(gateway.app).get(`/assets/${id}/download`).set('X-Api-Key', apiKey);

async function uploaded(visibility: 'private' | 'public' | 'shared' = 'private'): Promise<string> {
  const res = await upload(gw.app, owner.apiKey, png, { visibility });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

/** Asks until `status` comes back, for at most a second; answers the last status seen. */
async function statusWithin(gateway: TestGateway, id: string, status: number): Promise<number> {
  const deadline = Date.now() + 1000;
  let seen = (await download(gateway, owner.apiKey, id)).status;
  while (seen !== status && Date.now() < deadline) seen = (await download(gateway, owner.apiKey, id)).status;
  return seen;
}

it('serves repeated downloads from memory: a row changed behind its back is not read again', async () => {
  const id = await uploaded();
  expect((await download(gw, owner.apiKey, id)).headers['content-type']).toBe('image/png');
  // Not through the API, so nothing tells the cache.
  await gw.deps.db.prisma.asset.update({ where: { id }, data: { contentType: 'application/x-changed' } });
  expect((await download(gw, owner.apiKey, id)).headers['content-type']).toBe('image/png');
});

it('stops downloads through every instance once one of them has deleted the asset', async () => {
  const id = await uploaded('public');
  // Both instances hold the row, for its owner and for another organization.
  expect((await download(gw, owner.apiKey, id)).status).toBe(200);
  expect((await download(sibling, owner.apiKey, id)).status).toBe(200);
  expect((await download(sibling, stranger.apiKey, id)).status).toBe(200);

  expect((await request(sibling.app).delete(`/assets/${id}`).set('X-Api-Key', owner.apiKey)).status).toBe(204);
  // The deleting instance forgot the row before it answered; the other hears it through Redis.
  expect((await download(sibling, owner.apiKey, id)).status).toBe(410);
  expect(await statusWithin(gw, id, 410)).toBe(410);
  expect((await download(gw, stranger.apiKey, id)).status).toBe(410);
});

it('an id in capitals is the same asset: deleting it so stops downloads of the lowercase id on every instance', async () => {
  const id = await uploaded();
  // Cached under its lowercase spelling by both instances.
  expect((await download(gw, owner.apiKey, id)).status).toBe(200);
  expect((await download(sibling, owner.apiKey, id)).status).toBe(200);
  expect((await download(sibling, owner.apiKey, id.toUpperCase())).status).toBe(200);

  const deleted = await request(sibling.app).delete(`/assets/${id.toUpperCase()}`).set('X-Api-Key', owner.apiKey);
  expect(deleted.status).toBe(204);
  expect((await download(sibling, owner.apiKey, id)).status).toBe(410);
  expect(await statusWithin(gw, id, 410)).toBe(410);
  expect((await download(gw, owner.apiKey, id.toUpperCase())).status).toBe(410);
});

it("applies the access rules to the cached row: another organization's private asset answers like a missing one", async () => {
  const id = await uploaded('private');
  expect((await download(gw, owner.apiKey, id)).status).toBe(200);
  const hidden = await download(gw, stranger.apiKey, id);
  const missing = await download(gw, stranger.apiKey, randomUUID());
  expect(hidden.status).toBe(404);
  expect(hidden.body).toEqual(missing.body);
  // Its owner still reads it after the refusal.
  expect((await download(gw, owner.apiKey, id)).status).toBe(200);
});

it('a delete that did not happen (not the owner) leaves the asset downloadable everywhere', async () => {
  const id = await uploaded('shared');
  expect((await download(sibling, stranger.apiKey, id)).status).toBe(200);
  expect((await request(gw.app).delete(`/assets/${id}`).set('X-Api-Key', stranger.apiKey)).status).toBe(404);
  expect((await download(sibling, stranger.apiKey, id)).status).toBe(200);
  expect((await download(gw, owner.apiKey, id)).status).toBe(200);
});

it('with ASSET_CACHE_TTL_MS=0 every download reads the row', async () => {
  const uncached = await gw.startSibling({ ASSET_CACHE_TTL_MS: '0' });
  try {
    const id = await uploaded();
    expect((await download(uncached, owner.apiKey, id)).status).toBe(200);
    await gw.deps.db.prisma.asset.update({ where: { id }, data: { deletedAt: new Date() } });
    expect((await download(uncached, owner.apiKey, id)).status).toBe(410);
  } finally {
    await uncached.close();
  }
});
