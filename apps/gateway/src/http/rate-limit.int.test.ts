import request from 'supertest';
import { pngBytes, upload } from '../testing/asset-fixtures';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../testing/test-gateway';
import { withTestRoutes } from '../testing/test-routes';

// docs/api.md#rate-limits: every response carries X-RateLimit-*,
// a 429 also Retry-After. Tiny limits come from the environment, as in production.

const THING = '0195a3b0-0000-7000-8000-000000000001';

function rateLimitHeaders(res: request.Response) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

function expectRateLimitHeaders(res: request.Response) {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(res.headers[name]).toMatch(/^\d+$/);
  }
}

describe('X-RateLimit-* on every kind of response', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway();
    key = (await gw.createOrg('Headers')).apiKey;
  });
  afterAll(() => gw?.close());

  it('on 200, counting down per request', async () => {
    const app = withTestRoutes(gw);
    const first = await request(app).get('/_test/whoami').set('X-Api-Key', key);
    const second = await request(app).get('/_test/whoami').set('X-Api-Key', key);
    expect(first.status).toBe(200);
    expect(rateLimitHeaders(first)).toEqual({ limit: 2000, remaining: 1999, reset: expect.any(Number) });
    expect(rateLimitHeaders(second).remaining).toBe(1998);
    expect(rateLimitHeaders(first).reset).toBeGreaterThan(0);
    expect(rateLimitHeaders(first).reset).toBeLessThanOrEqual(60);
  });

  it.each([
    ['401 (no credentials)', () => request(withTestRoutes(gw)).get('/_test/whoami'), 401],
    [
      '403 (foreign X-Organization-Id)',
      () =>
        request(withTestRoutes(gw))
          .get('/_test/whoami')
          .set('X-Api-Key', key)
          .set('X-Organization-Id', '0195a3b0-0000-7000-8000-0000000000bb'),
      403,
    ],
    [
      '404 from a route',
      () => request(withTestRoutes(gw)).post(`/_test/things/${THING}`).set('X-Api-Key', key).send({ n: 1 }),
      404,
    ],
    [
      '422 from validation',
      () => request(withTestRoutes(gw)).post('/_test/things/nope').set('X-Api-Key', key).send({}),
      422,
    ],
    [
      '422 from the JSON parser',
      () =>
        request(gw.app).post('/agents').set('X-Api-Key', key).set('Content-Type', 'application/json').send('{"broken'),
      422,
    ],
    ['404 for an unknown path', () => request(gw.app).get('/no/such/path').set('X-Api-Key', key), 404],
    ['404 for an unknown path without credentials', () => request(gw.app).delete('/no/such/path'), 404],
  ])('on %s', async (_name, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expectRateLimitHeaders(res);
  });

  it('counts unknown paths against the caller’s own budget when the key is good', async () => {
    const before = rateLimitHeaders(await request(gw.app).get('/no/such/path').set('X-Api-Key', key)).remaining;
    const after = rateLimitHeaders(
      await request(withTestRoutes(gw)).get('/_test/whoami').set('X-Api-Key', key),
    ).remaining;
    expect(after).toBe(before - 1);
  });

  it('leaves public and admin routes alone (they are not part of the rate-limited API)', async () => {
    const health = await request(gw.app).get('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    const created = await request(gw.app)
      .post('/admin/organizations')
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ name: 'Unlimited' });
    expect(created.status).toBe(201);
    expect(created.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('429 when a limit is exceeded', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      RATE_LIMIT_DEFAULT_PER_MINUTE: '3',
      RATE_LIMIT_CREATE_PER_MINUTE: '2',
      RATE_LIMIT_UPLOAD_PER_MINUTE: '1',
    });
  });
  afterAll(() => gw?.close());

  it('answers 429 with Retry-After and X-RateLimit-* once the default budget is spent', async () => {
    const { apiKey } = await gw.createOrg('Limited');
    const app = withTestRoutes(gw);
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/_test/whoami').set('X-Api-Key', apiKey);
      expect(res.status).toBe(200);
      remaining.push(rateLimitHeaders(res).remaining);
    }
    expect(remaining).toEqual([2, 1, 0]);

    const limited = await request(app).get('/_test/whoami').set('X-Api-Key', apiKey);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: 'Rate limit exceeded' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rateLimitHeaders(limited)).toEqual({ limit: 3, remaining: 0, reset: expect.any(Number) });
    // Unknown paths are counted too, so they are limited as well.
    expect((await request(gw.app).get('/no/such/path').set('X-Api-Key', apiKey)).status).toBe(429);
  });

  it('counts each key separately', async () => {
    const a = await gw.createOrg('A');
    const b = await gw.createOrg('B');
    const app = withTestRoutes(gw);
    for (let i = 0; i < 3; i++) await request(app).get('/_test/whoami').set('X-Api-Key', a.apiKey);
    expect((await request(app).get('/_test/whoami').set('X-Api-Key', a.apiKey)).status).toBe(429);
    expect((await request(app).get('/_test/whoami').set('X-Api-Key', b.apiKey)).status).toBe(200);
  });

  it('counts routes of the create bucket separately, with their own limit', async () => {
    const { apiKey } = await gw.createOrg('Creator');
    const app = withTestRoutes(gw);
    const create = () => request(app).post(`/_test/things/${THING}`).set('X-Api-Key', apiKey).send({ n: 1 });
    expect(rateLimitHeaders(await create())).toMatchObject({ limit: 2, remaining: 1 });
    expect((await create()).status).toBe(404);
    const limited = await create();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    // The default bucket of the same key is untouched.
    const other = await request(app).get('/_test/whoami').set('X-Api-Key', apiKey);
    expect(other.status).toBe(200);
    expect(rateLimitHeaders(other)).toMatchObject({ limit: 3, remaining: 2 });
  });

  it('counts uploads apart from run creation: spending one budget leaves the other whole', async () => {
    const { apiKey } = await gw.createOrg('Uploader');
    const app = withTestRoutes(gw);
    const png = await pngBytes(8, 8);
    const first = await upload(gw.app, apiKey, png);
    expect(first.status).toBe(200);
    expect(rateLimitHeaders(first)).toMatchObject({ limit: 1, remaining: 0 });
    expect((await upload(gw.app, apiKey, png)).status).toBe(429);
    const create = await request(app).post(`/_test/things/${THING}`).set('X-Api-Key', apiKey).send({ n: 1 });
    expect(rateLimitHeaders(create)).toMatchObject({ limit: 2, remaining: 1 });
  });

  it('throttles failed authentication by client address', async () => {
    // Every test request comes from loopback, so addresses are told apart by X-Forwarded-For on an instance behind a "proxy".
    const proxied = await gw.startSibling({
      RATE_LIMIT_DEFAULT_PER_MINUTE: '3',
      RATE_LIMIT_CREATE_PER_MINUTE: '2',
      TRUST_PROXY: 'true',
    });
    try {
      const papp = withTestRoutes(proxied);
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await request(papp).get('/_test/whoami').set('X-Forwarded-For', '203.0.113.9')).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      // Another address is unaffected.
      expect((await request(papp).get('/_test/whoami').set('X-Forwarded-For', '203.0.113.10')).status).toBe(401);
    } finally {
      await proxied.close();
    }
  });
});
