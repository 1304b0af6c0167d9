import { waitFor } from '@weft/testing';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// Text PostgreSQL cannot store (a NUL, a lone UTF-16 surrogate) is refused at
// the door wherever it sits, and creates written together (ADR 0012) fail
// alone: one poisoned create never takes its neighbours down with it.

let stack: RunStack;
let org: { id: string; apiKey: string };
let agentId: string;

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Unstorable', 1000);
  agentId = (await postAgent(stack.gw.app, org.apiKey, { flow: splitFlow() })).id;
});
afterAll(() => stack.close());

/** POST `path` with `json` sent as is: JSON.stringify would never write a lone surrogate escape. */
const rawPost = (path: string, json: string) =>
  request(stack.gw.app).post(path).set('X-Api-Key', org.apiKey).set('Content-Type', 'application/json').send(json);

test('120 concurrent creates, every tenth with a lone surrogate: those are 422, the others run', async () => {
  const bodies = Array.from({ length: 120 }, (_, i) => {
    const value = i % 10 === 9 ? `bad ${i} \\ud800` : `good ${i}`;
    return `{"agent_id": "${agentId}", "inputs": [{"id": "text", "value": "${value}"}], "external_id": "batch-${i}"}`;
  });
  const answers = await Promise.all(bodies.map((body) => rawPost('/runs', body)));

  answers.forEach((res, i) => {
    if (i % 10 === 9) {
      expect({ i, status: res.status }).toEqual({ i, status: 422 });
      expect(res.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'inputs', 0, 'value'], type: 'string_unicode' }),
      ]);
    } else {
      expect({ i, status: res.status }).toEqual({ i, status: 201 });
    }
  });
  const created = answers.filter((res) => res.status === 201).map((res) => res.body.id as string);
  expect(created).toHaveLength(108);
  const ended = await waitFor(
    'every valid run to end',
    async () => {
      const rows = await stack.gw.deps.db.prisma.run.findMany({ where: { id: { in: created } } });
      return rows.length === created.length && rows.every((r) => r.status !== 'in_progress') ? rows : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  expect(ended.map((r) => r.status)).toEqual(created.map(() => 'completed'));
  // Nothing of the refused ones was written, and their keys are still free.
  expect(await stack.gw.deps.db.prisma.run.count({ where: { externalId: { endsWith: '9' } } })).toBe(0);
}, 120_000);

test('a well-formed surrogate pair (an emoji) is ordinary text', async () => {
  const res = await rawPost(
    '/runs',
    `{"agent_id": "${agentId}", "inputs": [{"id": "text", "value": "tea \\ud83c\\udf75"}], "external_id": "emoji \\ud83c\\udf75"}`,
  );
  expect(res.status).toBe(201);
  expect(res.body.external_id).toBe('emoji 🍵');
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`);
  expect(done).toMatchObject({ status: 'completed', inputs: [{ id: 'text', value: 'tea 🍵' }] });
  expect(done.results).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'first', value: 'tea 🍵' })]));
});

describe('a lone surrogate is refused wherever text reaches the database', () => {
  const flow = (param: string) =>
    JSON.stringify(splitFlow()).replace('"type":"text_split"', `"type":"text_split","params":{"separator":"${param}"}`);

  test.each([
    [
      'a run input (low half alone)',
      '/runs',
      () => `{"agent_id": "${agentId}", "inputs": [{"id": "text", "value": "\\udc00"}]}`,
      ['body', 'inputs', 0, 'value'],
    ],
    [
      'an external_id',
      '/runs',
      () => `{"agent_id": "${agentId}", "inputs": [{"id": "text", "value": "x"}], "external_id": "k\\ud800"}`,
      ['body', 'external_id'],
    ],
    ['an agent name', '/agents', () => `{"name": "n\\ud800", "description": "d"}`, ['body', 'name']],
    [
      'a flow param',
      '/agents',
      () => `{"name": "n", "description": "d", "flow": ${flow('\\ud800')}}`,
      ['body', 'flow', 'nodes', 1, 'params', 'separator'],
    ],
  ])('%s', async (_what, path, body, loc) => {
    const res = await rawPost(path, body());
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type: 'string_unicode' })]);
    expect(res.body.detail[0].msg).toMatch(/surrogate/);
  });

  test('a review output', async () => {
    const reviewed = await postAgent(stack.gw.app, org.apiKey, { flow: reviewFlow() });
    const run = await rawPost('/runs', `{"agent_id": "${reviewed.id}", "inputs": [{"id": "topic", "value": "tea"}]}`);
    expect(run.status).toBe(201);
    const parked = await pollRun(stack.gw, org.apiKey, `/runs/${run.body.id}`, (r) => r.awaiting_human_review === true);
    const reviewId = (parked.pending_reviews as { id: string }[])[0]!.id;
    const res = await rawPost(
      `/runs/${run.body.id}/reviews/${reviewId}`,
      '{"decision": "approve", "output": {"prompts": ["tea\\ud800"]}}',
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'output', 'prompts', 0], type: 'string_unicode' }),
    ]);
  });
});
