import { AssetPageSchema, AssetSchema, ErrorBody } from '@weft/contracts';
import { createUrlSigner } from '@weft/storage';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectSchema } from '../../testing/expect-schema';
import { pngBytes, upload } from '../../testing/asset-fixtures';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
let mine: { id: string; apiKey: string };
let other: { id: string; apiKey: string };
const ids: Record<string, string> = {};

const get = (path: string, apiKey: string) => request(gw.app).get(path).set('X-Api-Key', apiKey);
const del = (path: string, apiKey: string) => request(gw.app).delete(path).set('X-Api-Key', apiKey);

async function listIds(query: string, apiKey = mine.apiKey): Promise<string[]> {
  const res = await get(`/assets/${query}`, apiKey);
  expect(res.status).toBe(200);
  return expectSchema(AssetPageSchema, res.body).data.map((a) => a.id);
}

beforeAll(async () => {
  gw = await startTestGateway();
  mine = await gw.createOrg('mine');
  other = await gw.createOrg('other');
  const png = await pngBytes();
  for (const [name, apiKey, visibility] of [
    ['private', mine.apiKey, 'private'],
    ['public', mine.apiKey, 'public'],
    ['shared', mine.apiKey, 'shared'],
    ['otherPrivate', other.apiKey, 'private'],
    ['otherPublic', other.apiKey, 'public'],
    ['otherShared', other.apiKey, 'shared'],
  ] as const) {
    const res = await upload(gw.app, apiKey, png, { visibility, externalId: `ext-${name}` });
    expect(res.status).toBe(200);
    ids[name] = res.body.id;
  }
  // An asset produced by a run: only the agent_id/run_id filters find it among the uploads.
  const agent = await gw.deps.db.prisma.agent.create({
    data: { organizationId: mine.id, name: 'producer', description: '' },
  });
  const version = await gw.deps.db.prisma.agentVersion.create({
    data: { agentId: agent.id, version: 1, flow: {}, inputs: [], outputs: [] },
  });
  const run = await gw.deps.db.prisma.run.create({
    data: { organizationId: mine.id, kind: 'agent', agentId: agent.id, agentVersionId: version.id },
  });
  const produced = await gw.deps.db.prisma.asset.create({
    data: {
      organizationId: mine.id,
      assetType: 'output',
      mediaType: 'image',
      mediaExtension: 'png',
      contentType: 'image/png',
      storageKey: `runs/${run.id}/x.png`,
      agentId: agent.id,
      runId: run.id,
    },
  });
  ids.produced = produced.id;
  ids.agent = agent.id;
  ids.run = run.id;
});
afterAll(() => gw.close());

describe('GET /assets', () => {
  test("lists only the caller organization's assets, newest first", async () => {
    const listed = await listIds('');
    expect(listed).toEqual([ids.produced, ids.shared, ids.public, ids.private]);
  });

  test('asset_ids: repeatable; foreign and unknown ids are silently left out', async () => {
    const q = [ids.private, ids.public, ids.otherPublic, randomUUID()].map((id) => `asset_ids=${id}`).join('&');
    expect(await listIds(`?${q}`)).toEqual([ids.public, ids.private]);
  });

  test('asset_ids[] (the axios and PHP spelling) filters like asset_ids, and ids may be in capitals', async () => {
    const q = [ids.private, ids.public!.toUpperCase()].map((id) => `asset_ids[]=${id}`).join('&');
    expect(await listIds(`?${q}`)).toEqual([ids.public, ids.private]);
    expect(await listIds(`?asset_ids[]=${ids.private}&asset_ids=${ids.public}`)).toEqual([ids.public, ids.private]);
    expect((await get('/assets?asset_ids[]=nope', mine.apiKey)).status).toBe(422);
  });

  test('agent_id and run_id match produced assets only, and combine with AND', async () => {
    expect(await listIds(`?agent_id=${ids.agent}`)).toEqual([ids.produced]);
    expect(await listIds(`?run_id=${ids.run}`)).toEqual([ids.produced]);
    expect(await listIds(`?run_id=${ids.run}&asset_ids=${ids.private}`)).toEqual([]);
    expect(await listIds(`?agent_id=${randomUUID()}`)).toEqual([]);
  });

  test('external_id finds the upload that claimed it, in the own organization only', async () => {
    expect(await listIds('?external_id=ext-public')).toEqual([ids.public]);
    expect(await listIds('?external_id=ext-otherPublic')).toEqual([]);
  });

  test('pages with limit and cursor', async () => {
    const first = expectSchema(AssetPageSchema, (await get('/assets?limit=3', mine.apiKey)).body);
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    const second = expectSchema(
      AssetPageSchema,
      (await get(`/assets?limit=3&cursor=${first.next_cursor}`, mine.apiKey)).body,
    );
    expect(second.data.map((a) => a.id)).toEqual([ids.private]);
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
  });

  test('bad parameters: 422', async () => {
    expect((await get('/assets?limit=0', mine.apiKey)).status).toBe(422);
    expect((await get('/assets?limit=101', mine.apiKey)).status).toBe(422);
    expect((await get('/assets?asset_ids=nope', mine.apiKey)).status).toBe(422);
    expect((await get('/assets?cursor=garbage!', mine.apiKey)).status).toBe(422);
    expect((await get(`/assets?external_id=${'x'.repeat(256)}`, mine.apiKey)).status).toBe(422);
    expect((await get('/assets?external_id=a%00b', mine.apiKey)).status).toBe(422);
    expect((await get('/assets?external_id=', mine.apiKey)).status).toBe(422);
  });
});

describe('GET /assets/{id}', () => {
  test('own assets of every visibility', async () => {
    for (const name of ['private', 'public', 'shared']) {
      const res = await get(`/assets/${ids[name]}`, mine.apiKey);
      expect(res.status).toBe(200);
      expectSchema(AssetSchema, res.body);
    }
  });

  test("another organization's public and shared assets, but not its private ones", async () => {
    expect((await get(`/assets/${ids.otherPublic}`, mine.apiKey)).status).toBe(200);
    expect((await get(`/assets/${ids.otherShared}`, mine.apiKey)).status).toBe(200);
    const hidden = await get(`/assets/${ids.otherPrivate}`, mine.apiKey);
    const missing = await get(`/assets/${randomUUID()}`, mine.apiKey);
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    // Indistinguishable from a missing asset.
    expect(hidden.body).toEqual(missing.body);
    expectSchema(ErrorBody, hidden.body);
  });

  test('a malformed id: 422', async () => {
    expect((await get('/assets/not-a-uuid', mine.apiKey)).status).toBe(422);
  });

  test('url and large_url are fetchable without credentials', async () => {
    const asset = expectSchema(AssetSchema, (await get(`/assets/${ids.private}`, mine.apiKey)).body);
    const png = await pngBytes();
    for (const url of [asset.url, asset.large_url!]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), png)).toBe(0);
    }
    // Signed for a while: the same URL within the window, so clients can cache.
    const again = expectSchema(AssetSchema, (await get(`/assets/${ids.private}`, mine.apiKey)).body);
    expect(again.large_url).toBe(asset.large_url);
    expect(new URL(asset.large_url!).searchParams.get('X-Amz-Expires')).toBe('3600');
  });

  test('ASSET_PUBLIC_BASE_URL turns URLs into CDN URLs', async () => {
    const cdn = await gw.startSibling({ ASSET_PUBLIC_BASE_URL: 'https://cdn.example.test/assets/' });
    try {
      const res = await request(cdn.app).get(`/assets/${ids.private}`).set('X-Api-Key', mine.apiKey);
      expect(res.body.large_url).toBe(`https://cdn.example.test/assets/orgs/${mine.id}/assets/${ids.private}/original`);
    } finally {
      await cdn.close();
    }
  });
});

describe('url and large_url of types a browser could run', () => {
  const SVG = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.domain)</script></svg>',
  );

  /** What a browser is told by the store when it opens `url`. */
  async function served(url: string) {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    return {
      type: res.headers.get('content-type'),
      disposition: res.headers.get('content-disposition'),
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  }

  test('an SVG is handed out as an attachment of a type that does not run; a PNG stays inline', async () => {
    const svg = await upload(gw.app, mine.apiKey, SVG, { partName: 'logo.svg', contentType: 'image/svg+xml' });
    expect(svg.status).toBe(200);
    expect(svg.body.media_extension).toBe('svg');
    const listed = expectSchema(AssetPageSchema, (await get(`/assets/?asset_ids=${svg.body.id}`, mine.apiKey)).body);
    const read = expectSchema(AssetSchema, (await get(`/assets/${svg.body.id}`, mine.apiKey)).body);
    for (const url of [svg.body.url, svg.body.large_url, listed.data[0]!.url, read.url, read.large_url!]) {
      const answer = await served(url);
      expect(answer.type).toBe('application/octet-stream');
      expect(answer.disposition).toBe(`attachment; filename="logo.svg"; filename*=UTF-8''logo.svg`);
      expect(answer.bytes.equals(SVG)).toBe(true);
    }

    // The display name travels in the signed query and comes back exactly.
    const named = await upload(gw.app, mine.apiKey, SVG, { partName: 'plan de café.svg' });
    expect((await served(named.body.large_url)).disposition).toBe(
      `attachment; filename="plan de caf_.svg"; filename*=UTF-8''plan%20de%20caf%C3%A9.svg`,
    );

    const png = expectSchema(AssetSchema, (await get(`/assets/${ids.private}`, mine.apiKey)).body);
    const inline = await served(png.large_url!);
    expect(inline.type).toBe('image/png');
    expect(inline.disposition).toBeNull();
  });

  test('the SVG is stored as an attachment of an inert type: what a CDN in front of the bucket relays', async () => {
    const svg = await upload(gw.app, mine.apiKey, SVG, { partName: 'logo.svg' });
    const row = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: svg.body.id } });
    // A URL without response overrides: the object's own headers, as a CDN fetching it gets them.
    const plain = await served(await createUrlSigner(gw.deps.storage, { ttlSeconds: 600 }).urlFor(row.storageKey));
    expect(plain.type).toBe('application/octet-stream');
    expect(plain.disposition).toBe('attachment');
    expect(row.contentType).toBe('image/svg+xml');
    const download = await get(`/assets/${svg.body.id}/download`, mine.apiKey);
    expect(download.headers['content-type']).toBe('image/svg+xml');

    const png = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: ids.private } });
    const inline = await served(await createUrlSigner(gw.deps.storage, { ttlSeconds: 600 }).urlFor(png.storageKey));
    expect(inline.type).toBe('image/png');
    expect(inline.disposition).toBeNull();
  });

  test('with ASSET_PUBLIC_BASE_URL, an SVG still gets a signed URL of the store that says attachment', async () => {
    const svg = await upload(gw.app, mine.apiKey, SVG, { partName: 'logo.svg' });
    const cdn = await gw.startSibling({ ASSET_PUBLIC_BASE_URL: 'https://cdn.example.test/assets/' });
    try {
      const res = await request(cdn.app).get(`/assets/${svg.body.id}`).set('X-Api-Key', mine.apiKey);
      expect(res.body.large_url).not.toMatch(/^https:\/\/cdn\.example\.test/);
      const answer = await served(res.body.large_url);
      expect(answer.type).toBe('application/octet-stream');
      expect(answer.disposition).toMatch(/^attachment; /);
      const png = await request(cdn.app).get(`/assets/${ids.private}`).set('X-Api-Key', mine.apiKey);
      expect(png.body.large_url).toMatch(/^https:\/\/cdn\.example\.test\/assets\//);
    } finally {
      await cdn.close();
    }
  });
});

describe('DELETE /assets/{id}', () => {
  test('soft deletes: 204, then 410; the asset leaves listings, get and download', async () => {
    const png = await pngBytes();
    const { body } = await upload(gw.app, mine.apiKey, png, { externalId: 'to-delete' });
    expect((await del(`/assets/${body.id}`, mine.apiKey)).status).toBe(204);
    const again = await del(`/assets/${body.id}`, mine.apiKey);
    expect(again.status).toBe(410);
    expectSchema(ErrorBody, again.body);
    expect(await listIds('')).not.toContain(body.id);
    expect(await listIds('?external_id=to-delete')).toEqual([]);
    expect((await get(`/assets/${body.id}`, mine.apiKey)).status).toBe(404);
    expect((await get(`/assets/${body.id}/download`, mine.apiKey)).status).toBe(410);
    // The file is kept, and the key stays claimed.
    const row = await gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.deletedAt).not.toBeNull();
    expect((await fetch(body.large_url)).status).toBe(200);
    expect((await upload(gw.app, mine.apiKey, png, { externalId: 'to-delete' })).status).toBe(409);
  });

  test("another organization's asset: 404, even when public", async () => {
    expect((await del(`/assets/${ids.otherPublic}`, mine.apiKey)).status).toBe(404);
    expect((await del(`/assets/${ids.otherPrivate}`, mine.apiKey)).status).toBe(404);
    expect((await del(`/assets/${randomUUID()}`, mine.apiKey)).status).toBe(404);
    expect((await get(`/assets/${ids.otherPublic}`, other.apiKey)).status).toBe(200);
  });

  test('concurrent deletes: one 204, the rest 410', async () => {
    const { body } = await upload(gw.app, mine.apiKey, await pngBytes());
    const statuses = await Promise.all(Array.from({ length: 4 }, () => del(`/assets/${body.id}`, mine.apiKey)));
    expect(statuses.map((r) => r.status).sort()).toEqual([204, 410, 410, 410]);
  });
});
