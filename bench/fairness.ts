import type { ChildProcess } from 'node:child_process';
import { Pool } from 'pg';
import { loadConfig as loadWorkerConfig } from '@weft/worker';
import { startDelayProvider } from './lib/delay-provider';
import { freePort, loadAverage, postJson, sleep, startTs, stopChild, waitFor } from './lib/proc';
import { createOrg, startBenchGateway, startBenchStack } from './lib/stack';

// `npm run bench:fairness`: one organization's quick runs (one provider call
// answering in 10 ms) while another organization floods the worker with slow
// ones (provider calls of BENCH_FLOOD_DELAY_MS, twice as many runs as the
// worker has light slots). The quick runs' latency (created_at → completed_at,
// from PostgreSQL) is measured on an idle system and during the flood, once
// with the default ORG_MAX_EXECUTING_NODES and once with the cap out of the
// way (what the flood does without fair sharing). Target: p99 during the flood
// ≤ 2 × p99 idle, both measured in the same run. Exits 0 whether or not it is met.

const QUICK_RATE = Number(process.env.BENCH_QUICK_RATE ?? 20);
const QUICK_DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const FLOOD_DELAY_MS = Number(process.env.BENCH_FLOOD_DELAY_MS ?? 10_000);
const TARGET_RATIO = 2;
/** ORG_MAX_EXECUTING_NODES high enough never to hold anything back. */
const NO_CAP = 100_000;

interface Latency {
  count: number;
  completed: number;
  p50: number;
  p99: number;
}

interface Figures {
  cap: number;
  idle: Latency;
  flood: Latency;
}

const providerFlow = (url: string) => ({
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic' },
    { id: 'call', type: 'generic_provider', params: { url }, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'call', type: 'text', description: 'Answer' }],
});

async function main() {
  const stack = await startBenchStack({ name: 'bench-fairness' });
  const provider = await startDelayProvider();
  const db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  const workerConfig = loadWorkerConfig({ ...process.env, ...stack.serviceEnv });
  const slots = workerConfig.WORKER_LIGHT_CONCURRENCY;
  const defaultCap = workerConfig.ORG_MAX_EXECUTING_NODES;
  const floodRuns = 2 * slots;
  let children: ChildProcess[] = [];

  /** A gateway and a worker whose organizations may hold `cap` nodes each. */
  const startProcesses = async (cap: number) => {
    const env = { ...stack.serviceEnv, ORG_MAX_EXECUTING_NODES: String(cap) };
    const port = await freePort();
    const gateway = startBenchGateway({ ...stack, serviceEnv: env }, port, []);
    const worker = startTs('apps/worker/src/main.ts', {
      ...env,
      WORKER_HTTP_PORT: '0',
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    });
    children = [gateway, worker];
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    return base;
  };

  const createAgent = async (base: string, auth: Record<string, string>, name: string, delayMs: number) => {
    const agent = await postJson(`${base}/agents`, auth, {
      name,
      description: 'One provider call',
      tags: ['bench'],
      estimated_cost: 0,
      flow: providerFlow(provider.url(delayMs)),
    });
    return agent.id as string;
  };

  const startRun = async (base: string, auth: Record<string, string>, agentId: string) => {
    const run = await postJson(`${base}/runs`, auth, { agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }] });
    return run.id as string;
  };

  /** QUICK_RATE runs/s for QUICK_DURATION_S, evenly spaced; then their latency once all have ended. */
  const quickRuns = async (base: string, auth: Record<string, string>, agentId: string): Promise<Latency> => {
    const total = QUICK_RATE * QUICK_DURATION_S;
    const started: Promise<string>[] = [];
    const t0 = Date.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / QUICK_RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      started.push(startRun(base, auth, agentId));
    }
    const ids = await Promise.all(started);
    for (let deadline = Date.now() + 4 * FLOOD_DELAY_MS + 60_000; ;) {
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM runs WHERE id = ANY($1::uuid[]) AND status = 'in_progress'`,
        [ids],
      );
      if (Number(rows[0]!.n) === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.n} quick runs still in progress`);
      await sleep(200);
    }
    const { rows } = await db.query<{ completed: string; p50: number; p99: number }>(
      `SELECT count(*) FILTER (WHERE status = 'completed') AS completed,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS p99
         FROM runs WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return { count: ids.length, completed: Number(rows[0]!.completed), p50: rows[0]!.p50, p99: rows[0]!.p99 };
  };

  const measure = async (cap: number): Promise<Figures> => {
    const base = await startProcesses(cap);
    try {
      const quick = await createOrg(base, stack.adminToken, 1_000_000);
      const flooder = await createOrg(base, stack.adminToken, 1_000_000);
      const quickAgent = await createAgent(base, quick, 'Quick', 10);
      const floodAgent = await createAgent(base, flooder, 'Flood', FLOOD_DELAY_MS);
      // Unmeasured: JIT, pools and prepared statements of fresh processes.
      await quickRuns(base, quick, quickAgent);
      const idle = await quickRuns(base, quick, quickAgent);
      const flood: string[] = [];
      for (let i = 0; i < floodRuns; i++) flood.push(await startRun(base, flooder, floodAgent));
      const busy = Math.min(cap, slots);
      for (let deadline = Date.now() + 60_000; provider.active() < busy;) {
        if (Date.now() > deadline) throw new Error(`the flood reached ${provider.active()} of ${busy} slots`);
        await sleep(50);
      }
      const during = await quickRuns(base, quick, quickAgent);
      for (const id of flood) {
        await fetch(`${base}/runs/${id}`, { method: 'DELETE', headers: flooder }).then((r) => r.arrayBuffer());
      }
      return { cap, idle, flood: during };
    } finally {
      await Promise.all(children.map((c) => stopChild(c)));
    }
  };

  try {
    const fair = await measure(defaultCap);
    const unfair = await measure(NO_CAP);
    const f1 = (x: number) => x.toFixed(1);
    console.log(
      `\nbench:fairness — quick runs (text_input → generic_provider answering in 10 ms) at ${QUICK_RATE}/s for ` +
        `${QUICK_DURATION_S} s, idle and while another organization floods with ${floodRuns} runs whose provider call ` +
        `takes ${FLOOD_DELAY_MS} ms; 1 gateway + 1 worker (light concurrency ${slots}), same machine; ` +
        `load average ${loadAverage()}\n`,
    );
    console.log(
      '| ORG_MAX_EXECUTING_NODES | idle p50 / p99 ms | during the flood p50 / p99 ms | completed | p99 ratio (flood ÷ idle) |',
    );
    console.log('|---|---:|---:|---:|---:|');
    for (const f of [fair, unfair]) {
      console.log(
        `| ${f.cap === NO_CAP ? 'no cap (without fair sharing)' : `${f.cap} (default)`} | ${f1(f.idle.p50)} / ${f1(f.idle.p99)} | ` +
          `${f1(f.flood.p50)} / ${f1(f.flood.p99)} | ${f.flood.completed} of ${f.flood.count} | ${(f.flood.p99 / f.idle.p99).toFixed(2)} |`,
      );
    }
    const ratio = fair.flood.p99 / fair.idle.p99;
    console.log(
      `\nTarget: quick runs' p99 during the flood ≤ ${TARGET_RATIO} × idle p99 (same run) → ` +
        `${f1(fair.flood.p99)} ms vs ${f1(fair.idle.p99)} ms, ratio ${ratio.toFixed(2)}: ${ratio <= TARGET_RATIO ? 'MET' : 'NOT MET'}`,
    );
    console.log('(exit code 0 whether or not the target is met: figures swing with the machine’s load)');
  } finally {
    await db.end();
    await provider.close();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
