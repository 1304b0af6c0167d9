import type { Flow } from '@weft/contracts';
import { readRuns, type Engine } from '@weft/engine';
import { RUN_QUEUES } from '@weft/queue';
import { Queue } from 'bullmq';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { runInvariantViolations } from '../testing/invariants';
import { startRunStack, type RunStack } from '../testing/test-runs';

// A node completion commits in one statement, on the condition that the run is
// still at the version its rows were read at (packages/engine/src/store/commit-transition.ts).
// These tests make that condition fail on purpose: a sibling branch, a cancel
// or a redelivery lands between a node's read and its commit.

let stack: RunStack;
let engine: Engine;
let apiKey: string;
let orgId: string;
let agentId: string;
let queue: Queue;

/** Two roots joined: whichever root commits second must dispatch the join, exactly once. */
const diamond = (): Flow => ({
  nodes: [
    { id: 'a', type: 'text_input', required: true },
    { id: 'b', type: 'text_input', required: true },
    { id: 'join', type: 'prompt_concatenate', params: { separator: '+' }, inputs: { parts: ['a', 'b'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: 'Both' }],
});

beforeAll(async () => {
  // No consuming worker: the test executes nodes itself, in the order it needs.
  stack = await startRunStack({}, false);
  ({ apiKey, id: orgId } = await stack.gw.createOrg('Racer', 100));
  agentId = (await postAgent(stack.gw.app, apiKey, { flow: diamond(), estimated_cost: 3 })).id;
  // The queue paused (BullMQ hands out no job) and a reconciler that never finds a run stale: the worker
  // process's engine executes only what the test asks it to.
  queue = new Queue(RUN_QUEUES.light, { connection: stack.gw.deps.redis, prefix: stack.gw.config.REDIS_PREFIX });
  await queue.pause();
  engine = (await stack.startWorker({ reconcileStaleMs: 600_000 })).engine;
});
afterAll(async () => {
  await queue.close();
  await stack.close();
});

/** Creates a run and removes its queued root jobs, so that nothing but the test executes them. */
async function createRun(): Promise<string> {
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({
      agent_id: agentId,
      inputs: [
        { id: 'a', value: 'left' },
        { id: 'b', value: 'right' },
      ],
    })
    .expect(201);
  await queue.drain();
  return res.body.id as string;
}

const job = (runId: string, nodeId: string) => ({ runId, nodeId, attempt: 0 });
const nodesOf = async (runId: string) =>
  Object.fromEntries(
    (await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId } })).map((n) => [n.nodeId, n.status]),
  );

test('a sibling committed between read and commit: the second branch reads again and executes the join once', async () => {
  const runId = await createRun();
  const [stale] = await readRuns(stack.gw.deps.db.pool, [runId]);
  expect(stale?.run.version).toBe(0);

  const first = await engine.executeNode(job(runId, 'a'));
  expect(first).toEqual({ settled: ['a'], enqueued: [] });
  expect(await nodesOf(runId)).toEqual({ a: 'completed', b: 'running', join: 'pending' });
  // b computed from the read taken before a committed: its commit misses, it reads again, sees a, and
  // executes the join (an instant node) at once, committed with b in one statement.
  const second = await engine.executeNode(job(runId, 'b'), { known: stale! });
  expect(second).toEqual({ settled: ['b', 'join'], enqueued: [] });
  expect(await nodesOf(runId)).toEqual({ a: 'completed', b: 'completed', join: 'completed' });
  const done = await request(stack.gw.app).get(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(200);
  expect(done.body).toMatchObject({ status: 'completed', progress: 1, cost: 0 });
  expect(done.body.results).toEqual([{ id: 'join', type: 'text', value: 'left+right', description: 'Both' }]);
  // Two transitions: a's commit, then b's with the join and the run's completion.
  const row = await stack.gw.deps.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  expect(row.version).toBe(2);
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
});

test('a redelivered job with the read of its first delivery changes nothing once the node is settled', async () => {
  const runId = await createRun();
  const [stale] = await readRuns(stack.gw.deps.db.pool, [runId]);
  await engine.executeNode(job(runId, 'a'));
  const before = await stack.gw.deps.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  expect(await engine.executeNode(job(runId, 'a'), { known: stale! })).toEqual({ settled: [], enqueued: [] });
  const after = await stack.gw.deps.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
  expect(after).toEqual(before);
  expect(await nodesOf(runId)).toEqual({ a: 'completed', b: 'running', join: 'pending' });
  await engine.executeNode(job(runId, 'b'));
  expect(await nodesOf(runId)).toEqual({ a: 'completed', b: 'completed', join: 'completed' });
});

test('a cancel between read and commit wins: the node commits nothing and the reservation is released', async () => {
  const runId = await createRun();
  const [stale] = await readRuns(stack.gw.deps.db.pool, [runId]);
  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(204);
  expect(await engine.executeNode(job(runId, 'a'), { known: stale! })).toEqual({ settled: [], enqueued: [] });
  const run = await request(stack.gw.app).get(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(200);
  expect(run.body).toMatchObject({ status: 'canceled', cost: 0 });
  expect(await nodesOf(runId)).toEqual({ a: 'canceled', b: 'canceled', join: 'canceled' });
  expect(await balanceOf(stack.gw.deps.db, orgId)).toBe(100);
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
});

test('both roots committing at once, many times over: the join executes once, every run completes once, charged once', async () => {
  const runs = await Promise.all(Array.from({ length: 20 }, () => createRun()));
  await Promise.all(
    runs.map(async (runId) => {
      const [a, b] = await Promise.all([engine.executeNode(job(runId, 'a')), engine.executeNode(job(runId, 'b'))]);
      expect([...a.settled, ...b.settled].sort()).toEqual(['a', 'b', 'join']);
    }),
  );
  const ended = await stack.gw.deps.db.prisma.run.findMany({ where: { id: { in: runs } } });
  expect(ended.map((r) => r.status)).toEqual(runs.map(() => 'completed'));
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
});

test('completions of many runs committed together: each applies or not on its own version', async () => {
  const runs = await Promise.all(Array.from({ length: 12 }, () => createRun()));
  const stale = await readRuns(stack.gw.deps.db.pool, runs);
  // Half the runs move on (their `a` completes) after the stale reads were taken.
  const moved = runs.filter((_, i) => i % 2 === 1);
  await Promise.all(moved.map((runId) => engine.executeNode(job(runId, 'a'))));
  // Every `b` from its stale read, all at once: the worker's commits of one moment go in one statement,
  // where the moved runs miss (and are read again and committed), and the others apply.
  const results = await Promise.all(runs.map((runId, i) => engine.executeNode(job(runId, 'b'), { known: stale[i]! })));
  runs.forEach((runId, i) => {
    expect(results[i]).toEqual(
      moved.includes(runId) ? { settled: ['b', 'join'], enqueued: [] } : { settled: ['b'], enqueued: [] },
    );
  });
  for (const runId of runs) {
    expect(await nodesOf(runId)).toEqual(
      moved.includes(runId)
        ? { a: 'completed', b: 'completed', join: 'completed' }
        : { a: 'running', b: 'completed', join: 'pending' },
    );
  }
  await Promise.all(runs.filter((r) => !moved.includes(r)).map((runId) => engine.executeNode(job(runId, 'a'))));
  const ended = await stack.gw.deps.db.prisma.run.findMany({ where: { id: { in: runs } } });
  expect(ended.map((r) => r.status)).toEqual(runs.map(() => 'completed'));
  expect(await runInvariantViolations(stack.gw.deps.db)).toEqual([]);
});
