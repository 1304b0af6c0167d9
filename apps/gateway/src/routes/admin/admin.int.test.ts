import request from 'supertest';
import { balanceOf } from '../../testing/balance';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
const admin = () => ({ Authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
const MISSING_ID = '0195a3b0-0000-7000-8000-00000000dead';

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

async function ledger(orgId: string) {
  return gw.deps.db.prisma.creditLedgerEntry.findMany({
    where: { organizationId: orgId },
    orderBy: { createdAt: 'asc' },
    select: { kind: true, amount: true },
  });
}

function balance(orgId: string) {
  return balanceOf(gw.deps.db, orgId);
}

describe('admin authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { Authorization: 'Bearer not-the-admin-token-at-all' }],
    ['a prefix of the token', { Authorization: `Bearer ${TEST_ADMIN_TOKEN.slice(0, -1)}` }],
    ['the token without Bearer', { Authorization: TEST_ADMIN_TOKEN }],
    ['the token as an API key', { 'X-Api-Key': TEST_ADMIN_TOKEN }],
  ])('answers 401 with %s', async (_name, headers) => {
    const res = await request(gw.app).post('/admin/organizations').set(headers).send({ name: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('is disabled (404, like an unknown path) when ADMIN_TOKEN is unset', async () => {
    const off = await gw.startSibling({ ADMIN_TOKEN: '' });
    try {
      for (const [method, path] of [
        ['post', '/admin/organizations'],
        ['post', `/admin/organizations/${MISSING_ID}/api-keys`],
        ['delete', `/admin/api-keys/${MISSING_ID}`],
        ['post', `/admin/organizations/${MISSING_ID}/credits`],
      ] as const) {
        const res = await request(off.app)[method](path).set(admin()).send({ name: 'x', delta: 1 });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'Not Found' });
      }
    } finally {
      await off.close();
    }
  });
});

describe('POST /admin/organizations', () => {
  it('creates an organization with credits and a working API key', async () => {
    const res = await request(gw.app).post('/admin/organizations').set(admin()).send({ name: 'Acme', credits: 250 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name: 'Acme', credits: 250, api_key: expect.any(String) });
    expect(res.body.api_key).toMatch(/^weft_[0-9A-Za-z]{10}_[0-9A-Za-z]{43}$/);
    expect(await balance(res.body.id)).toBe(250);
    expect(await ledger(res.body.id)).toEqual([{ kind: 'grant', amount: 250 }]);
  });

  it('defaults credits to 0 and writes no ledger line for nothing', async () => {
    const res = await request(gw.app).post('/admin/organizations').set(admin()).send({ name: 'Zero' });
    expect(res.status).toBe(201);
    expect(res.body.credits).toBe(0);
    expect(await ledger(res.body.id)).toEqual([]);
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['negative credits', { name: 'x', credits: -1 }],
    ['fractional credits', { name: 'x', credits: 1.5 }],
  ])('rejects %s with 422', async (_name, body) => {
    const res = await request(gw.app).post('/admin/organizations').set(admin()).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: expect.arrayContaining(['body']) });
  });

  it('stores the key only as its SHA-256 hash', async () => {
    const res = await request(gw.app).post('/admin/organizations').set(admin()).send({ name: 'Hashed' });
    const key: string = res.body.api_key;
    const secret = key.split('_')[2]!;
    const rows = await gw.deps.db.pool.query<{ row: string }>(
      'SELECT row_to_json(k)::text AS row FROM api_keys k WHERE organization_id = $1',
      [res.body.id],
    );
    expect(rows.rows).toHaveLength(1);
    const stored = rows.rows[0]!.row;
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(secret);
    const { createHash } = await import('node:crypto');
    expect(stored).toContain(createHash('sha256').update(key).digest('hex'));
  });
});

describe('POST /admin/organizations/:org_id/api-keys', () => {
  it('issues another key for the organization', async () => {
    const org = await gw.createOrg('Keys');
    const res = await request(gw.app).post(`/admin/organizations/${org.id}/api-keys`).set(admin()).send({ name: 'ci' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), api_key: expect.stringMatching(/^weft_/) });
    expect(res.body.api_key).not.toBe(org.apiKey);
    const row = await gw.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ organizationId: org.id, name: 'ci', revokedAt: null });
  });

  it('accepts no body fields at all', async () => {
    const org = await gw.createOrg('Keys2');
    const res = await request(gw.app).post(`/admin/organizations/${org.id}/api-keys`).set(admin()).send({});
    expect(res.status).toBe(201);
  });

  it('answers 404 for an unknown organization and 422 for a malformed id', async () => {
    const missing = await request(gw.app).post(`/admin/organizations/${MISSING_ID}/api-keys`).set(admin()).send({});
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Organization not found' });
    const malformed = await request(gw.app).post('/admin/organizations/not-a-uuid/api-keys').set(admin()).send({});
    expect(malformed.status).toBe(422);
  });
});

describe('DELETE /admin/api-keys/:key_id', () => {
  it('revokes the key (204), and revoking again is also 204', async () => {
    const org = await gw.createOrg('Revoke');
    const key = await gw.deps.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: org.id } });
    const first = await request(gw.app).delete(`/admin/api-keys/${key.id}`).set(admin());
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    const revokedAt = (await gw.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt;
    expect(revokedAt).toBeInstanceOf(Date);

    const again = await request(gw.app).delete(`/admin/api-keys/${key.id}`).set(admin());
    expect(again.status).toBe(204);
    // The first revocation time is kept.
    expect((await gw.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toEqual(revokedAt);
  });

  it('answers 404 for an unknown key', async () => {
    const res = await request(gw.app).delete(`/admin/api-keys/${MISSING_ID}`).set(admin());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'API key not found' });
  });
});

describe('POST /admin/organizations/:org_id/credits', () => {
  it('adds and removes credits, writing one ledger line per change', async () => {
    const org = await gw.createOrg('Credits', 100);
    const add = await request(gw.app).post(`/admin/organizations/${org.id}/credits`).set(admin()).send({ delta: 50 });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ credits: 150 });
    const remove = await request(gw.app)
      .post(`/admin/organizations/${org.id}/credits`)
      .set(admin())
      .send({ delta: -150 });
    expect(remove.body).toEqual({ credits: 0 });
    expect(await ledger(org.id)).toEqual([
      { kind: 'grant', amount: 100 },
      { kind: 'grant', amount: 50 },
      { kind: 'grant', amount: -150 },
    ]);
  });

  it('refuses to go below zero with 409 and changes nothing', async () => {
    const org = await gw.createOrg('Poor', 10);
    const res = await request(gw.app).post(`/admin/organizations/${org.id}/credits`).set(admin()).send({ delta: -11 });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/below zero/);
    expect(await balance(org.id)).toBe(10);
    expect(await ledger(org.id)).toEqual([{ kind: 'grant', amount: 10 }]);
  });

  it('never goes negative under concurrent removals, and the ledger sums to the balance', async () => {
    const org = await gw.createOrg('Race', 10);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(gw.app).post(`/admin/organizations/${org.id}/credits`).set(admin()).send({ delta: -3 }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await balance(org.id)).toBe(1);
    const lines = await ledger(org.id);
    expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(1);
  });

  it('answers 404 for an unknown organization and 422 for a bad delta', async () => {
    const missing = await request(gw.app)
      .post(`/admin/organizations/${MISSING_ID}/credits`)
      .set(admin())
      .send({ delta: 1 });
    expect(missing.status).toBe(404);
    const org = await gw.createOrg('Bad delta');
    for (const body of [{}, { delta: 'ten' }, { delta: 0.5 }]) {
      const res = await request(gw.app).post(`/admin/organizations/${org.id}/credits`).set(admin()).send(body);
      expect(res.status).toBe(422);
    }
  });

  it('refuses a balance beyond the integer column with 422 instead of failing', async () => {
    const org = await gw.createOrg('Rich', 2_000_000_000);
    const res = await request(gw.app)
      .post(`/admin/organizations/${org.id}/credits`)
      .set(admin())
      .send({ delta: 2_000_000_000 });
    expect(res.status).toBe(422);
    expect(await balance(org.id)).toBe(2_000_000_000);
  });
});
