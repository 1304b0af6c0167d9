import { AgentPageSchema, AppPageSchema, ValidationErrorBody } from '@weft/contracts';
import { encodeCursor } from '@weft/db';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

// Cursor pagination is one module (packages/db/src/pagination.ts) shared by
// every list endpoint; these tests drive it through GET /agents and GET /apps.

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const get = (path: string, apiKey: string) => request(gw.app).get(path).set('X-Api-Key', apiKey);

/** The organization's agents in the documented order, read straight from the table. */
async function idsInOrder(orgId: string): Promise<string[]> {
  const rows = await gw.deps.db.prisma.agent.findMany({
    where: { organizationId: orgId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

async function page(path: string, apiKey: string) {
  const res = await get(path, apiKey);
  expect(res.status).toBe(200);
  return expectSchema(AgentPageSchema, res.body);
}

it('pages through 45 agents 20 / 20 / 5 with exact has_more and next_cursor', async () => {
  const org = await gw.createOrg();
  for (let i = 0; i < 45; i++) await postAgent(gw.app, org.apiKey, { name: `a${i}` });
  // Creation order, except that agents created in the same millisecond are ordered by id.
  const newestFirst = await idsInOrder(org.id);

  const p1 = await page('/agents?limit=20', org.apiKey);
  expect(p1.data).toHaveLength(20);
  expect(p1.has_more).toBe(true);
  expect(p1.next_cursor).toEqual(expect.any(String));

  const p2 = await page(`/agents?limit=20&cursor=${p1.next_cursor}`, org.apiKey);
  expect(p2.data).toHaveLength(20);
  expect(p2.has_more).toBe(true);

  const p3 = await page(`/agents?limit=20&cursor=${p2.next_cursor}`, org.apiKey);
  expect(p3.data).toHaveLength(5);
  expect(p3.has_more).toBe(false);
  expect(p3.next_cursor).toBeNull();

  expect([...p1.data, ...p2.data, ...p3.data].map((a) => a.id)).toEqual(newestFirst);

  // Exactly limit items left: no phantom next page.
  const exact = await page('/agents?limit=45', org.apiKey);
  expect(exact.data).toHaveLength(45);
  expect(exact).toMatchObject({ has_more: false, next_cursor: null });
  const under = await page('/agents?limit=44', org.apiKey);
  expect(under.has_more).toBe(true);
  const last = await page(`/agents?limit=44&cursor=${under.next_cursor}`, org.apiKey);
  expect(last.data.map((a) => a.id)).toEqual([newestFirst[44]]);
  expect(last).toMatchObject({ has_more: false, next_cursor: null });
});

it('neither skips nor repeats items when agents are created between pages', async () => {
  const org = await gw.createOrg();
  for (let i = 0; i < 25; i++) await postAgent(gw.app, org.apiKey, { name: `old${i}` });
  const before = await idsInOrder(org.id);

  const seen: string[] = [];
  let cursor: string | null = null;
  let inserted = 0;
  do {
    const p: { data: { id: string; name: string }[]; next_cursor: string | null } = await page(
      `/agents?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      org.apiKey,
    );
    seen.push(...p.data.map((a) => a.id));
    cursor = p.next_cursor;
    // New agents arrive while the client pages: they are newer than page 1 and never show up later.
    for (let i = 0; i < 3; i++) await postAgent(gw.app, org.apiKey, { name: `new${inserted++}` });
  } while (cursor);

  expect(seen).toEqual(before);
  expect(inserted).toBe(12);
});

it('orders rows created in the same millisecond by id, without loss across pages', async () => {
  const org = await gw.createOrg();
  const at = new Date('2026-01-01T00:00:00.123Z');
  const rows = Array.from({ length: 10 }, (_, i) => ({
    organizationId: org.id,
    name: `tie${i}`,
    description: '',
    createdAt: at,
  }));
  await gw.deps.db.prisma.agent.createMany({ data: rows });
  const expected = (await idsInOrder(org.id)).slice();
  // All ten share created_at, so the order is by id alone (descending).
  expect(expected).toEqual([...expected].sort().reverse());

  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const p: { data: { id: string }[]; next_cursor: string | null } = await page(
      `/agents?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      org.apiKey,
    );
    ids.push(...p.data.map((a) => a.id));
    cursor = p.next_cursor;
  } while (cursor);
  expect(ids).toEqual(expected);
});

it.each([['garbage'], ['eyJub3QiOiJhIGN1cnNvciJ9'], [encodeURIComponent('a+b/c=')]])(
  'a malformed cursor %j is a 422 at query.cursor',
  async (cursor) => {
    const org = await gw.createOrg();
    const res = await get(`/agents?cursor=${cursor}`, org.apiKey);
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'cursor'], type: 'value_error' })]);
  },
);

it('a well-formed cursor positioned anywhere is simply a position', async () => {
  const org = await gw.createOrg();
  await postAgent(gw.app, org.apiKey, { name: 'only' });
  const future = encodeCursor({ createdAt: new Date(Date.now() + 60_000), id: '00000000-0000-4000-8000-000000000000' });
  expect((await page(`/agents?cursor=${future}`, org.apiKey)).data.map((a) => a.name)).toEqual(['only']);
  const past = encodeCursor({ createdAt: new Date(0), id: '00000000-0000-4000-8000-000000000000' });
  expect(await page(`/agents?cursor=${past}`, org.apiKey)).toEqual({ data: [], has_more: false, next_cursor: null });
});

it('GET /apps pages the same way', async () => {
  const org = await gw.createOrg();
  const agent = await postAgent(gw.app, org.apiKey);
  for (let i = 0; i < 5; i++) {
    const res = await request(gw.app)
      .post('/apps')
      .set('X-Api-Key', org.apiKey)
      .send({
        name: `app${i}`,
        description: '',
        agent_id: agent.id,
        inputs: [{ id: 'text', type: 'text', name: 'Text', required: true }],
        outputs: [{ id: 'first', type: 'text', description: 'First line' }],
      });
    expect(res.status).toBe(201);
  }
  const expected = await gw.deps.db.prisma.app.findMany({
    where: { organizationId: org.id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true },
  });
  const first = await get('/apps?limit=2', org.apiKey);
  const p1 = expectSchema(AppPageSchema, first.body);
  const p2 = expectSchema(AppPageSchema, (await get(`/apps?limit=2&cursor=${p1.next_cursor}`, org.apiKey)).body);
  const p3 = expectSchema(AppPageSchema, (await get(`/apps?limit=2&cursor=${p2.next_cursor}`, org.apiKey)).body);
  expect([p1, p2, p3].map((p) => [p.data.length, p.has_more])).toEqual([
    [2, true],
    [2, true],
    [1, false],
  ]);
  expect([...p1.data, ...p2.data, ...p3.data].map((a) => a.id)).toEqual(expected.map((r) => r.id));
  const bad = await get('/apps?cursor=nope', org.apiKey);
  expect(bad.status).toBe(422);
  expect(bad.body.detail[0].loc).toEqual(['query', 'cursor']);
});
