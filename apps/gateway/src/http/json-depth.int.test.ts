import request from 'supertest';
import { postAgent, reviewFlow } from '../testing/catalog-fixtures';
import type { TestGateway } from '../testing/test-gateway';
import { withTestRoutes } from '../testing/test-routes';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';

// Deeply nested JSON: refused as it is read (422 json_too_deep), before any
// recursive code (schema validation, flow checks, the 422 body's `input`)
// could overflow the stack. And whatever happens, an error answer is JSON
// without a stack trace: never Express's HTML error page.

let stack: RunStack;
let gw: TestGateway;
let apiKey: string;

beforeAll(async () => {
  stack = await startRunStack();
  gw = stack.gw;
  ({ apiKey } = await gw.createOrg());
});
afterAll(() => stack.close());

/** `[[[...0...]]]`, `depth` arrays deep, as JSON text (JSON.stringify itself would overflow). */
const nested = (depth: number) => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

function postRaw(path: string, json: string) {
  return request(gw.server).post(path).set('X-Api-Key', apiKey).set('Content-Type', 'application/json').send(json);
}

function expectCleanTooDeep(res: request.Response) {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.detail).toEqual([
    {
      loc: ['body'],
      msg: expect.stringContaining('nested deeper than 64 levels'),
      type: 'json_too_deep',
      ctx: { max_depth: 64, line: expect.any(Number), column: expect.any(Number) },
    },
  ]);
  expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
}

test("100,000 nested arrays in a node's params (POST /agents): 422, nothing created", async () => {
  const body = `{"name": "Deep", "description": "", "flow": {"nodes": [
    {"id": "text", "type": "text_input"},
    {"id": "lines", "type": "text_split", "params": {"separator": ${nested(100_000)}}, "inputs": {"text": "text"}}
  ], "outputs": [{"id": "lines", "type": "data", "description": ""}]}}`;
  const res = await postRaw('/agents', body);
  expectCleanTooDeep(res);
  expect(res.body.detail[0].ctx.column).toBe(body.split('\n')[2]!.indexOf('[') + 60);
  expect(res.body.detail[0].ctx.line).toBe(3);
  expect(await gw.deps.db.prisma.agent.count({ where: { name: 'Deep' } })).toBe(0);
});

test('100,000 nested arrays in a run input (POST /runs): 422', async () => {
  const agent = await postAgent(gw.app, apiKey);
  const res = await postRaw(
    '/runs',
    `{"agent_id": "${agent.id}", "inputs": [{"id": "text", "value": ${nested(100_000)}}]}`,
  );
  expectCleanTooDeep(res);
  expect(await gw.deps.db.prisma.run.count({ where: { agentId: agent.id } })).toBe(0);
});

test('100,000 nested arrays in a review output (POST /runs/{id}/reviews/{review_id}): 422, still pending', async () => {
  const agent = await postAgent(gw.app, apiKey, { flow: reviewFlow() });
  const created = await request(gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'cats' }] });
  const parked = await pollRun(gw, apiKey, `/runs/${created.body.id}`, (r) => r.awaiting_human_review === true);
  const review = (parked.pending_reviews as Array<{ id: string }>)[0]!;
  const res = await postRaw(
    `/runs/${parked.id}/reviews/${review.id}`,
    `{"decision": "approve", "output": {"prompts": ${nested(100_000)}}}`,
  );
  expectCleanTooDeep(res);
  const after = await request(gw.app).get(`/runs/${parked.id}`).set('X-Api-Key', apiKey);
  expect(after.body.pending_reviews).toEqual(parked.pending_reviews);
});

test('64 levels are accepted: the limit is on nesting, not on what real bodies hold', async () => {
  // A run input nested exactly to the limit (the body's object is level 1, inputs 2, its item 3).
  const agent = await postAgent(gw.app, apiKey);
  const res = await postRaw(
    '/runs',
    `{"agent_id": "${agent.id}", "inputs": [{"id": "text", "value": ${nested(61)}}], "external_id": "deep-61"}`,
  );
  expect(res.status).not.toBe(500);
  expect(res.body.detail?.[0]?.type).not.toBe('json_too_deep');
  const over = await postRaw(
    '/runs',
    `{"agent_id": "${agent.id}", "inputs": [{"id": "text", "value": ${nested(62)}}]}`,
  );
  expectCleanTooDeep(over);
});

test('brackets inside strings do not count as nesting', async () => {
  const res = await postRaw('/agents', JSON.stringify({ name: '['.repeat(200), description: '{\\"['.repeat(50) }));
  expect(res.status).toBe(201);
});

test('an error the handler cannot serialise still answers a JSON 500 without a stack', async () => {
  const res = await request(withTestRoutes(gw)).get('/_test/unserialisable').set('X-Api-Key', apiKey);
  expect(res.status).toBe(500);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ detail: 'Internal server error' });
});
