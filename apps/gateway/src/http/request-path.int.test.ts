import request from 'supertest';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';

// The request path's generic behaviour: health probes, request ids, body limits
// and error bodies — what every route inherits from app.ts, through the HTTP
// server main.ts serves the app with (createHttpServer).

let gw: TestGateway;
let apiKey: string;

beforeAll(async () => {
  gw = await startTestGateway({ BODY_LIMIT_BYTES: '2048' });
  ({ apiKey } = await gw.createOrg());
});
afterAll(() => gw.close());

describe('health', () => {
  it('/healthz answers while the process is up', async () => {
    const res = await request(gw.server).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('/readyz checks the database, Redis, storage and the Redis eviction policy', async () => {
    const res = await request(gw.server).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      checks: { database: 'ok', redis: 'ok', storage: 'ok', redis_policy: 'ok' },
    });
  });

  it('/readyz answers 503 naming the dependency that is down', async () => {
    const sibling = await gw.startSibling({ S3_BUCKET: 'no-such-bucket-for-readyz' });
    try {
      const res = await request(sibling.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', redis: 'ok', storage: 'fail', redis_policy: 'ok' },
      });
    } finally {
      await sibling.close();
    }
  });
});

describe('request ids', () => {
  it('generates one per request and returns it', async () => {
    const a = await request(gw.server).get('/healthz');
    const b = await request(gw.server).get('/healthz');
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
  });

  it("echoes a caller's safe X-Request-Id and replaces an unsafe one", async () => {
    const echoed = await request(gw.server).get('/healthz').set('X-Request-Id', 'client-abc.123');
    expect(echoed.headers['x-request-id']).toBe('client-abc.123');
    const unsafe = await request(gw.server).get('/healthz').set('X-Request-Id', 'bad id\twith spaces');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('bodies', () => {
  it('answers 413 with the documented body when the JSON body is over the limit', async () => {
    const res = await request(gw.server)
      .post('/agents')
      .set('X-Api-Key', apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x', description: 'y'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('answers 422 json_invalid for malformed JSON, never a 500', async () => {
    const res = await request(gw.server)
      .post('/agents')
      .set('X-Api-Key', apiKey)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('answers 422 when a JSON body is required but missing', async () => {
    const res = await request(gw.server).post('/agents').set('X-Api-Key', apiKey);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc[0]).toBe('body');
  });
});

describe('caching', () => {
  it('tells browsers and proxies to keep no authenticated answer, and sends no ETag to revalidate with', async () => {
    const created = await request(gw.server)
      .post('/agents')
      .set('X-Api-Key', apiKey)
      .send({ name: 'Not cached', description: 'd' });
    expect(created.status).toBe(201);
    for (const path of [
      '/agents?limit=20',
      `/agents/${created.body.id}`,
      '/agents/00000000-0000-4000-8000-000000000000',
    ]) {
      const res = await request(gw.server).get(path).set('X-Api-Key', apiKey);
      expect([path, res.headers['cache-control'], res.headers['etag']]).toEqual([path, 'no-store', undefined]);
    }
    // An ETag a client kept from an earlier version gets the answer, never a bodiless 304.
    const again = await request(gw.server)
      .get('/agents?limit=20')
      .set('X-Api-Key', apiKey)
      .set('If-None-Match', 'W/"1f4-kept"');
    expect(again.status).toBe(200);
    expect(again.body.data.length).toBeGreaterThan(0);
  });
});

describe('unknown paths', () => {
  it('answer 404 with the detail body', async () => {
    const res = await request(gw.server).get('/no-such-thing').set('X-Api-Key', apiKey);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });
});
