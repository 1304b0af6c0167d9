import type { Flow } from '@weft/contracts';
import { ExternalIdConflictError } from '@weft/errors';
import { readRuns } from '../store/run-snapshots';
import { agentRun, createOrganization, publishAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { jobIds, queuedJobIds } from '../testing/queued-jobs';
import { balanceOf, ledgerOf, nodeStatuses, storedRun } from '../testing/stored-rows';

// Starting a run: the run written with its roots dispatched and its
// estimated cost reserved, or failed for want of credits; a reused
// external_id; a flow with nothing to execute; many creates of one
// organization at once.

let stack: EngineTestStack;

beforeAll(async () => {
  stack = await startEngineTestStack();
});
afterAll(() => stack.close());

const flow: Flow = {
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'picture', type: 'image_input', required: false },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: 'Joined' }],
};
const commentsOnly: Flow = {
  nodes: [{ id: 'note', type: 'comment', params: { text: 'Nothing to execute yet' } }],
  outputs: [],
};
const topic = [{ id: 'topic', value: 'tea' }];

test('a run is written in progress with its roots dispatched and its estimated cost reserved', async () => {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow, 30);

  const started = await stack.engine.startRun(agentRun(agent, topic));

  expect(started).toMatchObject({
    status: 'in_progress',
    failureReason: null,
    error: null,
    completedAt: null,
    currentNode: 'text_input',
    agentVersion: 1,
  });
  expect(started.dispatch).toEqual([
    { nodeId: 'topic', attempt: 0, nodeType: 'text_input' },
    { nodeId: 'picture', attempt: 0, nodeType: 'image_input' },
  ]);
  expect(await nodeStatuses(stack.db, started.id)).toEqual({ topic: 'running', picture: 'running', join: 'pending' });
  // Both roots are light: the instant one at once, the other once it holds a slot (there are plenty).
  expect(await queuedJobIds(stack.queues.light, started.id)).toEqual(
    jobIds(started.id, [{ nodeId: 'topic' }, { nodeId: 'picture' }]),
  );
  expect(await storedRun(stack.db, started.id)).toMatchObject({ status: 'in_progress', reserved_credits: 30 });
  expect(await ledgerOf(stack.db, started.id)).toEqual([
    { kind: 'reserve', amount: -30, note: 'estimated cost reserved' },
  ]);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 70, pending: 0, total: 70 });
  const [read] = await readRuns(stack.db.pool, [started.id]);
  expect(read?.run).toMatchObject({ status: 'in_progress', organization_id: org, reserved_credits: 30 });
  expect(read?.inputs).toEqual(topic);
});

test('without the credits the run is written failed with insufficient_credits: no node, nothing reserved', async () => {
  const org = await createOrganization(stack.db, 10);
  const agent = await publishAgent(stack.db, org, flow, 30);

  const started = await stack.engine.startRun(agentRun(agent, topic));

  expect(started).toMatchObject({
    status: 'failed',
    failureReason: 'insufficient_credits',
    error: 'Insufficient credits: this run needs 30',
    currentNode: null,
    dispatch: [],
  });
  expect(started.completedAt).toBeInstanceOf(Date);
  expect(await storedRun(stack.db, started.id)).toMatchObject({
    status: 'failed',
    failure_reason: 'insufficient_credits',
    reserved_credits: 0,
    cost: 0,
  });
  expect(await nodeStatuses(stack.db, started.id)).toEqual({});
  expect(await queuedJobIds(stack.queues.light, started.id)).toEqual([]);
  expect(await ledgerOf(stack.db, started.id)).toEqual([]);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 10, pending: 0, total: 10 });
});

test('a reused external_id is refused naming the run that holds it, and nothing is reserved twice', async () => {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow, 30);
  const first = await stack.engine.startRun(agentRun(agent, topic, { externalId: 'order-42' }));

  const again = stack.engine.startRun(agentRun(agent, topic, { externalId: 'order-42' }));

  await expect(again).rejects.toBeInstanceOf(ExternalIdConflictError);
  await expect(again).rejects.toMatchObject({ status: 409, extra: { existing_id: first.id } });
  const { rows } = await stack.db.pool.query<{ id: string }>(
    'SELECT id FROM runs WHERE organization_id = $1 AND external_id = $2',
    [org, 'order-42'],
  );
  expect(rows).toEqual([{ id: first.id }]);
  const { rows: reserved } = await stack.db.pool.query(
    `SELECT amount FROM credit_ledger WHERE organization_id = $1 AND kind = 'reserve'`,
    [org],
  );
  expect(reserved).toEqual([{ amount: -30 }]);
  expect((await balanceOf(stack.db, org)).total).toBe(70);
  // The key is the organization's own: another one may use it.
  const other = await publishAgent(stack.db, await createOrganization(stack.db, 100), flow, 30);
  expect((await stack.engine.startRun(agentRun(other, topic, { externalId: 'order-42' }))).status).toBe('in_progress');
});

test('a flow of comments only completes at creation, and gives its reservation back for the next one', async () => {
  const org = await createOrganization(stack.db, 30);
  const agent = await publishAgent(stack.db, org, commentsOnly, 30);

  const started = await stack.engine.startRun(agentRun(agent));

  expect(started).toMatchObject({ status: 'completed', failureReason: null, currentNode: null, dispatch: [] });
  expect(await storedRun(stack.db, started.id)).toMatchObject({ status: 'completed', results: [], cost: 0 });
  expect(await ledgerOf(stack.db, started.id)).toEqual([
    { kind: 'reserve', amount: -30, note: 'estimated cost reserved' },
    { kind: 'release', amount: 30, note: 'reservation released' },
  ]);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 0, pending: 30, total: 30 });
  // The credits given back are what funds the next run: the organization's own row holds none.
  expect((await stack.engine.startRun(agentRun(agent))).status).toBe('completed');
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 0, pending: 30, total: 30 });
});

test('twenty concurrent creates of one organization are all written, each reserved exactly once', async () => {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow, 5);

  const started = await Promise.all(Array.from({ length: 20 }, () => stack.engine.startRun(agentRun(agent, topic))));

  expect(started.map((s) => s.status)).toEqual(Array(20).fill('in_progress'));
  expect(new Set(started.map((s) => s.id)).size).toBe(20);
  const { rows } = await stack.db.pool.query<{ run_id: string; amount: number }>(
    `SELECT run_id, amount FROM credit_ledger WHERE organization_id = $1 ORDER BY run_id`,
    [org],
  );
  expect(rows).toEqual(
    started.map((s) => ({ run_id: s.id, amount: -5 })).sort((a, b) => (a.run_id < b.run_id ? -1 : 1)),
  );
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 0, pending: 0, total: 0 });
  for (const s of started) expect(await nodeStatuses(stack.db, s.id)).toMatchObject({ topic: 'running' });
});

test('concurrent creates beyond the balance: exactly as many as it covers are funded, the rest fail', async () => {
  const org = await createOrganization(stack.db, 90);
  const agent = await publishAgent(stack.db, org, flow, 5);

  const started = await Promise.all(Array.from({ length: 20 }, () => stack.engine.startRun(agentRun(agent, topic))));

  const funded = started.filter((s) => s.status === 'in_progress');
  const failed = started.filter((s) => s.status === 'failed');
  expect(funded).toHaveLength(18);
  expect(failed.map((s) => s.failureReason)).toEqual(['insufficient_credits', 'insufficient_credits']);
  for (const s of failed) expect(await nodeStatuses(stack.db, s.id)).toEqual({});
  const { rows } = await stack.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM credit_ledger WHERE organization_id = $1 AND kind = 'reserve' AND amount = -5`,
    [org],
  );
  expect(rows[0]!.n).toBe(18);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 0, pending: 0, total: 0 });
});
