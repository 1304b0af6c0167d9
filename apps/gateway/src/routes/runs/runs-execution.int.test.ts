import { RunSchema } from '@weft/contracts';
import request from 'supertest';
import { postAgent, splitFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { runInvariantViolations } from '../../testing/invariants';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// Agent runs executing end to end: gateway → BullMQ → workers → PostgreSQL.

let stack: RunStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Runner', 100));
});
afterAll(() => stack.close());

const post = (body: object) => request(stack.gw.app).post('/runs').set('X-Api-Key', apiKey).send(body);

test('instant nodes run in the worker that made them ready: one queue job and one commit for a text-only flow', async () => {
  const agent = await postAgent(stack.gw.app, apiKey, { flow: splitFlow() });
  const created = await post({ agent_id: agent.id, inputs: [{ id: 'text', value: 'one\ntwo' }] });
  const done = await pollRun(stack.gw, apiKey, `/runs/${created.body.id}`);
  expect(done.status).toBe('completed');
  // BullMQ's event stream of the node queue: jobs are added only for the root the gateway dispatched.
  const events = await stack.gw.deps.redis.xrange(`${stack.gw.config.REDIS_PREFIX}:nodes-light:events`, '-', '+');
  const fieldsOf = (f: string[]) => Object.fromEntries(f.flatMap((v, i) => (i % 2 ? [] : [[v, f[i + 1]]])));
  const added = events
    .map(([, fields]) => fieldsOf(fields))
    .filter((e) => e.event === 'added' && String(e.jobId).startsWith(created.body.id as string));
  expect(added).toHaveLength(1);
  // The root and the two instant nodes after it were committed together: one transition of the run.
  const run = await stack.gw.deps.db.prisma.run.findUniqueOrThrow({ where: { id: created.body.id as string } });
  expect(run.version).toBe(1);
  // Every node was still recorded as completed, each with its own start and completion time.
  const nodes = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId: created.body.id as string } });
  expect(nodes.map((n) => [n.status, n.startedAt !== null, n.completedAt !== null])).toEqual(
    nodes.map(() => ['completed', true, true]),
  );
});

test('an instant node failing after others in its chain: the nodes before it are kept, the run fails with its reason', async () => {
  const flow = splitFlow();
  flow.nodes[2]!.params = { index: 5 };
  const agent = await postAgent(stack.gw.app, apiKey, { flow, estimated_cost: 2 });
  const created = await post({ agent_id: agent.id, inputs: [{ id: 'text', value: 'one\ntwo' }] });
  const done = await pollRun(stack.gw, apiKey, `/runs/${created.body.id}`);
  expect(done).toMatchObject({
    status: 'failed',
    failure_reason: 'invalid_input',
    error: "Node 'first': index 5 is outside the list of 2 item(s)",
    cost: 0,
  });
  const nodes = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId: created.body.id as string } });
  expect(Object.fromEntries(nodes.map((n) => [n.nodeId, n.status]))).toEqual({
    text: 'completed',
    lines: 'completed',
    first: 'failed',
  });
  expect(nodes.find((n) => n.nodeId === 'lines')?.output).toEqual({ type: 'data', value: ['one', 'two'] });
  // The reservation released in full, the ledger explaining it.
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
});

test('an ended run read again is the same record, and still 404 for another organization and as an app run', async () => {
  const agent = await postAgent(stack.gw.app, apiKey, { flow: splitFlow() });
  const created = await post({ agent_id: agent.id, inputs: [{ id: 'text', value: 'x\ny' }] });
  const done = await pollRun(stack.gw, apiKey, `/runs/${created.body.id}`);
  expect(done.status).toBe('completed');
  // Ended runs never change: the second read (served from the instance's memory) is identical.
  const again = await request(stack.gw.app).get(`/runs/${created.body.id}`).set('X-Api-Key', apiKey).expect(200);
  expect(again.body).toEqual(done);
  const other = await stack.gw.createOrg('Someone else', 10);
  const theirs = await request(stack.gw.app).get(`/runs/${created.body.id}`).set('X-Api-Key', other.apiKey);
  expect(theirs.status).toBe(404);
  await request(stack.gw.app).get(`/app-runs/${created.body.id}`).set('X-Api-Key', apiKey).expect(404);
});

test('a 3-node text flow runs to completion with results per flow output', async () => {
  const agent = await postAgent(stack.gw.app, apiKey, { flow: splitFlow() });
  const created = await post({
    agent_id: agent.id,
    inputs: [{ id: 'text', value: 'alpha\n\nbeta\ngamma' }],
    external_id: 'r-1',
  });
  expect(created.status).toBe(201);
  const body = expectSchema(RunSchema, created.body);
  expect(body).toMatchObject({
    agent_id: agent.id,
    external_id: 'r-1',
    status: 'in_progress',
    agent_version: 1,
    awaiting_human_review: false,
    pending_reviews: [],
    inputs: [{ id: 'text', value: 'alpha\n\nbeta\ngamma' }],
  });

  const done = await pollRun(stack.gw, apiKey, `/runs/${body.id}`);
  const run = expectSchema(RunSchema, done);
  expect(run.status).toBe('completed');
  expect(run.progress).toBe(1);
  expect(run.current_node).toBeUndefined();
  expect(run.cost).toBe(0);
  expect(run.started_at).not.toBeNull();
  expect(run.completed_at).not.toBeNull();
  expect(run.results).toEqual([
    { id: 'lines', type: 'data', value: ['alpha', 'beta', 'gamma'], description: 'All lines' },
    { id: 'first', type: 'text', value: 'alpha', description: 'The first line' },
  ]);
});
