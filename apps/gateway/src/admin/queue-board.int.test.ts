import { parseExposition } from '@weft/metrics';
import request from 'supertest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../testing/test-gateway';
import { presentedToken } from './queue-board-auth';

// Bull Board at /admin/queues: only with the admin token, as a Bearer token
// (scripts) or as the Basic password (browsers, prompted by the 401).

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

test('without the admin token: 401 asking the browser for Basic credentials', async () => {
  for (const authorization of [
    undefined,
    'Bearer wrong-admin-token-0000000',
    basic('admin', 'wrong-admin-token-0000000'),
    `Basic ${Buffer.from(TEST_ADMIN_TOKEN).toString('base64')}`, // no user:password pair
    TEST_ADMIN_TOKEN,
  ]) {
    const req = request(gw.app).get('/admin/queues');
    const res = authorization === undefined ? await req : await req.set('Authorization', authorization);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="weft"/);
    expect(res.body).toEqual({ detail: 'Missing or wrong admin token' });
  }
  // The board's JSON API is behind the same guard.
  expect((await request(gw.app).get('/admin/queues/api/queues')).status).toBe(401);
});

test('with the admin token as Bearer or as the Basic password: the board and its queues', async () => {
  const bearer = await request(gw.app).get('/admin/queues').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
  expect(bearer.status).toBe(200);
  expect(bearer.headers['content-type']).toMatch(/text\/html/);
  expect(bearer.text).toContain('/admin/queues');

  const page = await request(gw.app).get('/admin/queues').set('Authorization', basic('anyone', TEST_ADMIN_TOKEN));
  expect(page.status).toBe(200);

  const api = await request(gw.app)
    .get('/admin/queues/api/queues')
    .set('Authorization', basic('ops', TEST_ADMIN_TOKEN));
  expect(api.status).toBe(200);
  const names = (api.body as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
  expect(names).toEqual(['assets', 'nodes-heavy', 'nodes-light', 'webhooks']);
});

test('board requests are measured under one route label', async () => {
  await request(gw.app).get('/admin/queues/api/queues').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
  const m = parseExposition((await request(gw.app).get('/metrics')).text);
  expect(
    m.value('weft_http_request_duration_seconds_count', { route: '/admin/queues', status: '200' }),
  ).toBeGreaterThan(0);
  expect(m.samples.some((s) => s.labels.route?.startsWith('/admin/queues/'))).toBe(false);
});

test('without ADMIN_TOKEN configured the board is not served', async () => {
  const open = await gw.startSibling({ ADMIN_TOKEN: '' });
  try {
    const res = await request(open.app).get('/admin/queues').set('Authorization', basic('x', TEST_ADMIN_TOKEN));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  } finally {
    await open.close();
  }
});

test('presentedToken reads Bearer tokens and Basic passwords (which may contain colons)', () => {
  expect(presentedToken('Bearer abc')).toBe('abc');
  expect(presentedToken('bearer  abc')).toBe('abc');
  expect(presentedToken(basic('u', 'p:a:ss'))).toBe('p:a:ss');
  expect(presentedToken(basic('', 'secret'))).toBe('secret');
  expect(presentedToken('Digest abc')).toBeUndefined();
  expect(presentedToken(undefined)).toBeUndefined();
});
