import { waitFor } from '@weft/testing';
import request from 'supertest';
import { pngBytes, upload } from '../testing/asset-fixtures';
import { postAgent, splitFlow } from '../testing/catalog-fixtures';
import { siblingViaProxy, type ProxiedService, type TcpProxy } from '../testing/tcp-proxy';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';
import { withTestRoutes } from '../testing/test-routes';

// A dependency that goes away under real requests: a gateway instance reaches
// PostgreSQL (or Redis) through a TCP proxy that stops, as a database restart
// or a Redis failover would. While it is away, requests that need it answer
// 503 with Retry-After (never 500); once it is back they succeed again. A bug
// of ours stays a 500.

jest.setTimeout(60_000);

let gw: TestGateway;
let org: { id: string; apiKey: string };
let agentId: string;
const proxies: TcpProxy[] = [];
const siblings: TestGateway[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
  org = await gw.createOrg('Outage', 1_000);
  agentId = (await postAgent(gw.app, org.apiKey)).id;
});
afterAll(async () => {
  for (const sibling of siblings) await sibling.close();
  for (const proxy of proxies) await proxy.close();
  await gw.close();
});

/** A gateway instance of its own whose connections to `service` go through a proxy. */
async function gatewayVia(service: ProxiedService): Promise<{ app: TestGateway; proxy: TcpProxy }> {
  const via = await siblingViaProxy(gw, service);
  proxies.push(via.proxy);
  siblings.push(via.app);
  return via;
}

const createRun = (app: TestGateway, apiKey = org.apiKey) =>
  request(app.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'text', value: 'a\nb' }] });
const listRuns = (app: TestGateway, apiKey: string) => request(app.app).get('/runs').set('X-Api-Key', apiKey);
const getRun = (app: TestGateway, id: string) => request(app.app).get(`/runs/${id}`).set('X-Api-Key', org.apiKey);

function expectUnavailable(res: request.Response, what: RegExp) {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 503,
    body: { detail: expect.stringMatching(what) },
  });
  expect(res.headers['retry-after']).toBe('5');
}

test('PostgreSQL stopped under load: POST /runs and GET /runs/{id} answer 503 with Retry-After, then 2xx again', async () => {
  const { app, proxy } = await gatewayVia('DATABASE_URL');
  const before = await createRun(app);
  expect(before.status).toBe(201);
  // A key this instance has not seen yet must be looked up in the database.
  const fresh = await gw.createOrg('Outage, fresh key', 10);

  await proxy.down();
  try {
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => createRun(app)),
      ...Array.from({ length: 10 }, () => getRun(app, before.body.id)),
    ]);
    for (const res of answers) expectUnavailable(res, /temporarily unavailable/);
    expectUnavailable(await listRuns(app, fresh.apiKey), /temporarily unavailable/);
    // Readiness agrees.
    expect((await request(app.app).get('/readyz')).status).toBe(503);
  } finally {
    await proxy.up();
  }

  await waitFor('GET /runs/{id} to answer 200 again', async () => (await getRun(app, before.body.id)).status === 200);
  const after = await createRun(app);
  expect(after.status).toBe(201);
  expect((await listRuns(app, fresh.apiKey)).status).toBe(200);
});

test('Redis stopped: no request answers 500; those that need Redis answer 503 with Retry-After, then 2xx again', async () => {
  const { app, proxy } = await gatewayVia('REDIS_URL');
  const run = await createRun(app);
  expect(run.status).toBe(201);
  const agentPath = `/agents/${agentId}`;

  await proxy.down();
  try {
    // A committed create is answered as such: a 503 would invite a retry that creates a second agent.
    const created = await request(app.app)
      .post('/agents')
      .set('X-Api-Key', org.apiKey)
      .send({ name: 'Made while Redis was away', description: '', flow: splitFlow() });
    expect(created.status).toBe(201);
    const answers = await Promise.all([
      createRun(app),
      getRun(app, run.body.id),
      request(app.app).get(agentPath).set('X-Api-Key', org.apiKey),
      request(app.app).get('/runs').set('X-Api-Key', org.apiKey),
      request(app.app).post(`${agentPath}/versions`).set('X-Api-Key', org.apiKey).send({ flow: splitFlow() }),
    ]);
    for (const res of answers) {
      expect(res.status).not.toBe(500);
      if (res.status === 503) expectUnavailable(res, /temporarily unavailable/);
    }
  } finally {
    await proxy.up();
  }
  await waitFor('POST /runs to answer 201 again', async () => (await createRun(app)).status === 201);
});

test('the object store stopped: uploads and downloads answer 503 with Retry-After, then 2xx again', async () => {
  const { app, proxy } = await gatewayVia('S3_ENDPOINT');
  const png = await pngBytes();
  const stored = await upload(app.app, org.apiKey, png, { partName: 'a.png', contentType: 'image/png' });
  expect(stored.status).toBe(200);
  const download = () => request(app.app).get(`/assets/${stored.body.id}/download`).set('X-Api-Key', org.apiKey);

  await proxy.down();
  try {
    expectUnavailable(await download(), /temporarily unavailable/);
    expectUnavailable(
      await upload(app.app, org.apiKey, png, { partName: 'b.png', contentType: 'image/png' }),
      /temporarily unavailable/,
    );
  } finally {
    await proxy.up();
  }
  await waitFor('the download to answer 200 again', async () => (await download()).status === 200);
});

test('a bug of ours is still a 500 with the generic body', async () => {
  const res = await request(withTestRoutes(gw)).get('/_test/bug').set('X-Api-Key', org.apiKey);
  expect(res.status).toBe(500);
  expect(res.body).toEqual({ detail: 'Internal server error' });
  expect(res.headers['retry-after']).toBeUndefined();
});
