import request from 'supertest';
import { pngBytes, upload } from '../testing/asset-fixtures';
import { postAgent } from '../testing/catalog-fixtures';
import { siblingViaProxy, type ProxiedService, type TcpProxy } from '../testing/tcp-proxy';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';

// A dependency that stops answering without closing its connections, as
// behind a network partition or a failover that moved its address: nothing
// fails at the socket, so without bounds of our own a request would wait
// until TCP gives up, minutes later. With the timeouts set short here, every
// request is answered within them: 503 with Retry-After where the request
// needs the silent service, its normal answer where it can do without, and
// normal answers again once the service speaks.

jest.setTimeout(60_000);

const TIMEOUT_MS = 1000;

let gw: TestGateway;
let org: { id: string; apiKey: string };
let agentId: string;
const proxies: TcpProxy[] = [];
const siblings: TestGateway[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
  org = await gw.createOrg('Silence', 1_000);
  agentId = (await postAgent(gw.app, org.apiKey)).id;
});
afterAll(async () => {
  for (const proxy of proxies) proxy.speak();
  for (const sibling of siblings) await sibling.close();
  for (const proxy of proxies) await proxy.close();
  await gw.close();
});

/** A gateway instance whose connections to `service` go through a proxy, with short timeouts. */
async function gatewayVia(service: ProxiedService): Promise<{ app: TestGateway; proxy: TcpProxy }> {
  const via = await siblingViaProxy(gw, service, {
    DATABASE_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS),
    DATABASE_QUERY_TIMEOUT_MS: String(TIMEOUT_MS),
    REDIS_COMMAND_TIMEOUT_MS: String(TIMEOUT_MS),
    S3_IDLE_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  proxies.push(via.proxy);
  siblings.push(via.app);
  return via;
}

const createRun = (app: TestGateway) =>
  request(app.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'text', value: 'a\nb' }] });
const getRun = (app: TestGateway, id: string) => request(app.app).get(`/runs/${id}`).set('X-Api-Key', org.apiKey);

function expectUnavailable(res: request.Response) {
  expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
    status: 503,
    body: { detail: expect.stringMatching(/temporarily unavailable/) },
    retryAfter: '5',
  });
}

test('PostgreSQL silent: requests answer 503 within the timeouts instead of hanging, then 2xx again', async () => {
  const { app, proxy } = await gatewayVia('DATABASE_URL');
  const before = await createRun(app);
  expect(before.status).toBe(201);

  proxy.silence();
  try {
    // More requests than the pool has connections: those holding one wait for
    // their answer, the others for a connection, and both waits are bounded.
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => createRun(app)),
      ...Array.from({ length: 8 }, () => getRun(app, before.body.id)),
    ]);
    for (const res of answers) expectUnavailable(res);
    expect((await request(app.app).get('/readyz')).status).toBe(503);
  } finally {
    proxy.speak();
  }

  expect((await getRun(app, before.body.id)).status).toBe(200);
  expect((await createRun(app)).status).toBe(201);
});

test('Redis silent: every request is answered, none with 500, and runs are created again once it speaks', async () => {
  const { app, proxy } = await gatewayVia('REDIS_URL');
  const run = await createRun(app);
  expect(run.status).toBe(201);

  proxy.silence();
  try {
    const answers = await Promise.all([
      createRun(app),
      getRun(app, run.body.id),
      request(app.app).get(`/agents/${agentId}`).set('X-Api-Key', org.apiKey),
      request(app.app).get('/runs').set('X-Api-Key', org.apiKey),
    ]);
    for (const res of answers) {
      expect(res.status).not.toBe(500);
      if (res.status === 503) expectUnavailable(res);
    }
    // Reading a run needs no Redis: the rate limiter falls back to counting in the process.
    expect(answers[1]!.status).toBe(200);
    expect((await request(app.app).get('/readyz')).status).toBe(503);
  } finally {
    proxy.speak();
  }

  expect((await createRun(app)).status).toBe(201);
});

test('the object store silent: uploads and downloads answer 503 within the timeout, then 200 again', async () => {
  const { app, proxy } = await gatewayVia('S3_ENDPOINT');
  const png = await pngBytes();
  const stored = await upload(app.app, org.apiKey, png, { partName: 'a.png', contentType: 'image/png' });
  expect(stored.status).toBe(200);
  const download = () => request(app.app).get(`/assets/${stored.body.id}/download`).set('X-Api-Key', org.apiKey);

  proxy.silence();
  try {
    expectUnavailable(await download());
    expectUnavailable(await upload(app.app, org.apiKey, png, { partName: 'b.png', contentType: 'image/png' }));
  } finally {
    proxy.speak();
  }

  expect((await download()).status).toBe(200);
});
