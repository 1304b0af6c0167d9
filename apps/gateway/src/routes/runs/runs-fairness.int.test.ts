import type { Flow } from '@weft/contracts';
import { executeNodeJobId } from '@weft/queue';
import { waitFor } from '@weft/testing';
import { OrgSlots } from '@weft/engine';
import { parseExposition } from '@weft/metrics';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { startFakeProvider, type FakeProvider } from '../../testing/fake-provider';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// Fair sharing between organizations (ADR 0025): one organization's backlog of
// slow provider calls never holds more than ORG_MAX_EXECUTING_NODES of the
// worker's slots, so another organization's run goes through at once.

jest.setTimeout(60_000);

const CAP = 2;
/** More than CAP, so that without fair sharing the flood alone fills every slot of the worker. */
const WORKER_CONCURRENCY = 4;

let stack: RunStack;
let provider: FakeProvider;

beforeAll(async () => {
  [stack, provider] = await Promise.all([
    startRunStack(
      { ORG_MAX_EXECUTING_NODES: String(CAP), METRICS_CLUSTER_CACHE_MS: '0' },
      { lightConcurrency: WORKER_CONCURRENCY },
    ),
    startFakeProvider(),
  ]);
});
afterAll(async () => {
  await stack.close();
  await provider.close();
});

const delayFlow = (ms: number, tag: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    {
      id: 'call',
      type: 'generic_provider',
      params: { url: provider.url(`/delay?ms=${ms}&tag=${tag}`) },
      inputs: { prompt: 'topic' },
    },
  ],
  outputs: [{ id: 'call', type: 'text', description: 'Provider answer' }],
});

async function startRuns(apiKey: string, flow: Flow, count: number): Promise<string[]> {
  const agent = await postAgent(stack.gw.app, apiKey, { flow });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', apiKey)
      .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: `t${i}` }] });
    expect(res.status).toBe(201);
    ids.push(res.body.id as string);
  }
  return ids;
}

async function statusOf(apiKey: string, runId: string): Promise<string> {
  const res = await request(stack.gw.app).get(`/runs/${runId}`).set('X-Api-Key', apiKey);
  return res.body.status as string;
}

async function cancelAll(apiKey: string, ids: string[]): Promise<void> {
  for (const id of ids) await request(stack.gw.app).delete(`/runs/${id}`).set('X-Api-Key', apiKey);
}

test("an organization's run completes while another's flood of slow nodes is still queued", async () => {
  const flooder = await stack.gw.createOrg('Flooder');
  const quick = await stack.gw.createOrg('Quick');
  const flood = await startRuns(flooder.apiKey, delayFlow(30_000, 'flood'), 4 * WORKER_CONCURRENCY);
  try {
    await waitFor('the flood to hold its slots', () => provider.delayed('flood').active >= CAP);

    const [runId] = await startRuns(quick.apiKey, delayFlow(10, 'quick'), 1);
    const done = await pollRun(stack.gw, quick.apiKey, `/runs/${runId!}`, undefined, 10_000);
    expect(done.status).toBe('completed');

    // The flood is still there: every run in progress, only CAP of its nodes ever reached the provider.
    const statuses = await Promise.all(flood.map((id) => statusOf(flooder.apiKey, id)));
    expect(statuses.every((s) => s === 'in_progress')).toBe(true);
    expect(provider.delayed('flood').started).toBe(CAP);
  } finally {
    // Canceled runs' nodes are aborted: the worker is free for the next test.
    await cancelAll(flooder.apiKey, flood);
  }
});

test('never more than ORG_MAX_EXECUTING_NODES nodes of one organization execute at once, and all of them run', async () => {
  const org = await stack.gw.createOrg('Capped');
  const ids = await startRuns(org.apiKey, delayFlow(400, 'capped'), 3 * WORKER_CONCURRENCY);
  for (const id of ids) {
    expect((await pollRun(stack.gw, org.apiKey, `/runs/${id}`, undefined, 30_000)).status).toBe('completed');
  }
  expect(provider.delayed('capped')).toMatchObject({ started: ids.length, maxActive: CAP });
});

test('a slot whose holder is gone (its worker killed, its job lost) comes back when its lease lapses', async () => {
  const org = await stack.gw.createOrg('Orphaned');
  // What a killed worker leaves behind: slots held by jobs that no longer exist, renewed by nobody
  // (leases of 4 s here, not 60 s).
  const slots = new OrgSlots(stack.gw.deps.redis, stack.gw.config.REDIS_PREFIX, { maxPerOrg: CAP, leaseMs: 4_000 });
  const ghosts = [0, 1].map((i) => ({
    runId: '00000000-0000-4000-8000-00000000000' + String(i),
    nodeId: 'call',
    attempt: 0,
    nodeType: 'generic_provider',
    organizationId: org.id,
  }));
  expect(await slots.admit(org.id, ghosts)).toHaveLength(CAP);

  const [runId] = await startRuns(org.apiKey, delayFlow(10, 'orphaned'), 1);
  // Its text input runs at once (instant nodes take no slot); its provider call waits for one.
  const job = { runId: runId!, nodeId: 'call', attempt: 0 };
  await waitFor('the provider call to wait for a slot', () => slots.isWaiting(org.id, executeNodeJobId(job)));
  // Dashboards see it, though it has no queue job yet.
  const waiting = await backlogGauges();
  expect(waiting.nodes).toBeGreaterThanOrEqual(1);
  expect(waiting.organizations).toBeGreaterThanOrEqual(1);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${runId!}`, undefined, 15_000);
  expect(done.status).toBe('completed');
  expect(provider.delayed('orphaned').started).toBe(1);
  expect(await backlogGauges()).toEqual({ nodes: 0, organizations: 0 });
});

/** The gateway's gauges of nodes waiting for a slot, as Prometheus scrapes them. */
async function backlogGauges(): Promise<{ nodes: number; organizations: number }> {
  const res = await request(stack.gw.app).get('/metrics');
  const m = parseExposition(res.text);
  return {
    nodes: m.value('weft_nodes_waiting_for_slot'),
    organizations: m.value('weft_organizations_waiting_for_slot'),
  };
}
