import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { Pool } from 'pg';
import { withDatabaseName } from '@weft/devstack';
import { startOpenAIDouble, type OpenAIDouble } from '@weft/testing';
import { loadConfig as loadWorkerConfig } from '@weft/worker';
import { paced } from './lib/paced';
import { pgUpdateTps } from './lib/pg-ceiling';
import {
  childrenCpuMicros,
  cpuMicros,
  cpuMicrosOfCommand,
  freePort,
  loadAverage,
  runTsForOutput,
  sleep,
  startTs,
  stopChild,
  waitFor,
} from './lib/proc';
import {
  createOrg,
  createProviderAgent,
  createTextAgent,
  profileArgs,
  startBenchGateway,
  startBenchStack,
} from './lib/stack';

// `npm run bench:runs`: runs of the three-node text flow created through the
// real gateway and executed by a real worker process, first at a fixed rate,
// then as fast as they are accepted. Figures come from PostgreSQL (the runs'
// and node rows' timestamps, pg_stat_database) and are printed beside two
// ceilings measured in the same run on the same machine: BullMQ no-op jobs/s
// (a worker process with the real worker's concurrency) and single-row UPDATE
// commits/s at 8 clients. BENCH_CPU_PROF=1 writes --cpu-prof profiles of the
// gateway and worker under .weft/bench/prof. Exits 0 whether targets are met or not.
//
// The provider phases run text_input → llm → llm → llm against the OpenAI
// double (started in this process, answering at once): each node after the
// root is a queued job, so they measure the queue path a text flow's instant
// nodes skip. Their ceiling is a bare BullMQ FlowProducer chain making the same
// three calls with the same openai SDK (bench/ceiling-provider-chain.ts), chains/s
// in the same run; bench:providers measures the same pair with calls that wait.
// BENCH_PHASES=text or BENCH_PHASES=provider runs only those phases (and their ceilings).

const FIXED_RATE = Number(process.env.BENCH_FIXED_RATE ?? 300);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/** Unmeasured load before the phases: JIT, connection pools and prepared statements of fresh processes. */
const WARM_UP_S = Number(process.env.BENCH_WARM_UP_S ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TARGET_RUNS_PER_S = 1000;
const TARGET_RATIO = 0.3;
const TARGET_DISPATCH_P50_MS = 2;
const TARGET_DISPATCH_P99_MS = 10;
/** Provider flow runs/s ÷ the bare chain's chains/s (bench:providers' target, here with calls answered at once). */
const TARGET_PROVIDER_RATIO = 0.8;
const PROVIDER_DURATION_S = Number(process.env.BENCH_PROVIDER_DURATION_S ?? 2);
const PROVIDER_MAX_RUNS = Number(process.env.BENCH_PROVIDER_MAX_RUNS ?? 500);
/**
 * The one organization of the benchmark may hold this many provider calls queued or
 * executing (ADR 0025, 0033). Its share (default 500) would bound the provider flow, every
 * node of which takes a slot, at 500 ÷ a node's time; bench:fairness and bench:providers
 * measure the share. Instant nodes (the whole text flow) take none.
 */
const ORG_MAX_EXECUTING_NODES = process.env.ORG_MAX_EXECUTING_NODES ?? '100000';
/** A backlog (the provider flow is slower than the rate offered) is waited out for this long at most. */
const DRAIN_TIMEOUT_MS = 300_000;
const WORKLOADS = ['text', 'provider'] as const;
type WorkloadName = (typeof WORKLOADS)[number];
const PHASES = (process.env.BENCH_PHASES ?? WORKLOADS.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
for (const name of PHASES) {
  if (!(WORKLOADS as readonly string[]).includes(name)) {
    throw new Error(`BENCH_PHASES: '${name}' is not one of ${WORKLOADS.join(', ')}`);
  }
}
const runs = (name: WorkloadName) => PHASES.includes(name);
/** The key the worker sends the double (which accepts any): a secret to no one. */
const DOUBLE_KEY = 'sk-bench-double';

/** What a phase runs: its agent, its inputs, and which node pairs its dispatch is measured on. */
interface Workload {
  name: WorkloadName;
  createAgent(base: string, auth: Record<string, string>, name: string): Promise<string>;
  inputs: { id: string; value: string }[];
  /** [previous, next]: the next node's start − the previous node's completion. */
  edges: [string, string][];
  /** The run's root (its start − the run's created_at: the create→root queue hop). */
  root: string;
}

const TEXT: Workload = {
  name: 'text',
  createAgent: createTextAgent,
  inputs: [{ id: 'topic', value: 'first line\nsecond line' }],
  edges: [
    ['topic', 'join'],
    ['join', 'split'],
  ],
  root: 'topic',
};

const PROVIDER: Workload = {
  name: 'provider',
  createAgent: createProviderAgent,
  inputs: [{ id: 'topic', value: 'a short note about looms' }],
  edges: [
    ['topic', 'outline'],
    ['outline', 'draft'],
    ['draft', 'polish'],
  ],
  root: 'topic',
};
/** PostgreSQL 15 flushes an idle backend's statistics within 10 s. */
const STATS_FLUSH_MS = 11_000;

interface Phase {
  name: string;
  workload: WorkloadName;
  offered: string;
  accepted: number;
  rejected: number;
  acceptedPerS: number;
  completed: number;
  failed: number;
  /** Completed runs ÷ (last completed_at − first created_at). */
  runsPerS: number;
  latencyP50: number;
  latencyP99: number;
  dispatchP50: number;
  dispatchP99: number;
  /** `a→b p50 / p99` of each edge measured, in ms. */
  dispatchByEdge: string;
  queueHopP50: number;
  queueHopP99: number;
  commitsPerRun: number;
  /** Transaction ids assigned (writing transactions), cluster-wide: other databases' writes count too. */
  writeXactsPerRun: number;
  gatewayCpuUsPerRun: number;
  /** The worker and its child processes (ffprobe of stored media, when it runs any). */
  workerCpuUsPerRun: number;
  /** Every postgres process of the machine (the bench database's server is local). */
  postgresCpuUsPerRun: number;
  redisCpuUsPerRun: number;
}

async function main() {
  const stack = await startBenchStack();
  const gatewayPort = await freePort();
  const children: ChildProcess[] = [];
  const nodeArgs = profileArgs();
  let double: OpenAIDouble | undefined;
  // Settings of both the gateway and the worker.
  const serviceEnv: Record<string, string> = { ORG_MAX_EXECUTING_NODES };
  // The provider phases' OpenAI-compatible server. The gateway reads the same settings (it
  // describes the routes); the worker fetches the double's loopback address under the outbound rules.
  if (runs('provider')) {
    double = await startOpenAIDouble();
    double.chunkGapMs = 0;
    Object.assign(serviceEnv, {
      OPENAI_API_KEY: DOUBLE_KEY,
      OPENAI_BASE_URL: double.baseURL,
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    });
  }
  // Any free port for the worker's /metrics listener: a dev stack may hold the default.
  const workerEnv = {
    ...stack.serviceEnv,
    ...serviceEnv,
    WORKER_HTTP_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
  const workerConfig = loadWorkerConfig({ ...process.env, ...workerEnv });
  const db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  // pg_stat_database read from another database, so that reading it adds no commit to the bench database.
  const stats = new Pool({ connectionString: withDatabaseName(stack.databaseUrl, 'postgres'), max: 1 });
  const benchDb = new URL(stack.databaseUrl).pathname.slice(1);
  /** Statements this script ran on the bench database between two stats reads (each is a commit). */
  let ownQueries = 0;
  const query = async <T extends object>(text: string, values: unknown[] = []) => {
    ownQueries++;
    return (await db.query<T & import('pg').QueryResultRow>(text, values)).rows;
  };

  try {
    // Ceilings first, while nothing else of ours runs.
    const updateTps = runs('text') ? await pgUpdateTps(stack.databaseUrl, 8, 5_000) : NaN;
    const bull = runs('text')
      ? (JSON.parse(
          await runTsForOutput('bench/ceiling-bullmq.ts', {
            REDIS_URL: stack.redisUrl,
            REDIS_PREFIX: `${stack.redisPrefix}-ceiling`,
            CONCURRENCY: String(workerConfig.WORKER_LIGHT_CONCURRENCY),
            BENCH_DURATION_MS: '5000',
          }),
        ) as { jobsPerSecond: number })
      : { jobsPerSecond: NaN };
    const chain = runs('provider')
      ? (JSON.parse(
          await runTsForOutput('bench/ceiling-provider-chain.ts', {
            REDIS_URL: stack.redisUrl,
            REDIS_PREFIX: `${stack.redisPrefix}-ceiling-chain`,
            CONCURRENCY: String(workerConfig.WORKER_LIGHT_CONCURRENCY),
            CHAINS: String(PROVIDER_MAX_RUNS),
            OPENAI_BASE_URL: double?.baseURL ?? '',
          }),
        ) as { chains: number; seconds: number; chainsPerSecond: number; cpuUs: number })
      : { chains: 0, seconds: NaN, chainsPerSecond: NaN, cpuUs: NaN };

    const gateway = startBenchGateway(stack, gatewayPort, nodeArgs, serviceEnv);
    const worker = startTs('apps/worker/src/main.ts', workerEnv, nodeArgs);
    children.push(gateway, worker);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(`${base}/readyz`);
    const auth = await createOrg(base, stack.adminToken, 10_000_000);

    const readStats = async () => {
      const { rows } = await stats.query<{ commits: string; xid: string }>(
        `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = $1) AS commits,
                pg_snapshot_xmax(pg_current_snapshot())::text AS xid`,
        [benchDb],
      );
      return { commits: Number(rows[0]!.commits), xid: Number(rows[0]!.xid) };
    };

    const runPhase = async (
      work: Workload,
      name: string,
      rate: number | undefined,
      durationS = DURATION_S,
      /** As fast as accepted, this many runs instead of `durationS` seconds of them. */
      amount?: number,
    ): Promise<Phase> => {
      const agentId = await work.createAgent(base, auth, `Bench ${work.name} ${name}`);
      const body = JSON.stringify({ agent_id: agentId, inputs: work.inputs });
      const headers = { ...auth, 'content-type': 'application/json' };
      // At a fixed rate, evenly spaced requests (lib/paced.ts); as fast as accepted, autocannon.
      const load = async () =>
        rate
          ? {
              ...(await paced({
                url: `${base}/runs`,
                method: 'POST',
                headers,
                body: () => body,
                rate,
                durationS,
                connections: CONNECTIONS,
              })),
              timeouts: 0,
            }
          : autocannon({
              url: `${base}/runs`,
              method: 'POST',
              headers,
              body,
              connections: CONNECTIONS,
              ...(amount ? { amount } : { duration: durationS }),
            });
      await sleep(STATS_FLUSH_MS);
      await stats.query('SELECT pg_stat_clear_snapshot()');
      const before = await readStats();
      ownQueries = 0;
      const cpuNow = () => ({
        gateway: cpuMicros(gateway.pid!),
        worker: cpuMicros(worker.pid!) + childrenCpuMicros(worker.pid!),
        postgres: cpuMicrosOfCommand('postgres'),
        redis: cpuMicrosOfCommand('redis-server'),
      });
      const cpuBefore = cpuNow();
      // For whoever attaches a profiler to the load itself (perf record -a, say): the phase's load starts now.
      console.error(
        `[bench:runs] ${work.name} ${name} phase: load starts for ${amount ? `${amount} runs` : `${durationS} s`}`,
      );
      const loadStarted = performance.now();
      const r = await load();
      const loadS = amount ? (performance.now() - loadStarted) / 1000 : durationS;
      // Until every run has ended and every asset they made is processed (the background
      // ffprobe of text_to_speech's MP3): that work is the runs' too, and counts in their CPU.
      for (let deadline = Date.now() + DRAIN_TIMEOUT_MS; ;) {
        const [row] = await query<{ n: string; pending: string }>(
          `SELECT (SELECT count(*) FROM runs WHERE agent_id = $1 AND status = 'in_progress') AS n,
                  (SELECT count(*) FROM assets a JOIN runs r ON r.id = a.run_id
                    WHERE r.agent_id = $1 AND a.processing_status = 'pending') AS pending`,
          [agentId],
        );
        if (Number(row!.n) === 0 && Number(row!.pending) === 0) break;
        if (Date.now() > deadline) {
          throw new Error(
            `${row!.n} runs in progress, ${row!.pending} assets unprocessed after ${DRAIN_TIMEOUT_MS / 1000} s`,
          );
        }
        await sleep(250);
      }
      const cpuAfter = cpuNow();
      const cpu = {
        gateway: cpuAfter.gateway - cpuBefore.gateway,
        worker: cpuAfter.worker - cpuBefore.worker,
        postgres: cpuAfter.postgres - cpuBefore.postgres,
        redis: cpuAfter.redis - cpuBefore.redis,
      };
      await sleep(STATS_FLUSH_MS);
      await stats.query('SELECT pg_stat_clear_snapshot()');
      const after = await readStats();
      const own = ownQueries;

      const [runs] = await query<{
        completed: string;
        failed: string;
        span_s: number;
        p50: number;
        p99: number;
      }>(
        `SELECT count(*) FILTER (WHERE status = 'completed') AS completed,
                count(*) FILTER (WHERE status <> 'completed') AS failed,
                extract(epoch FROM max(completed_at) - min(created_at))::float8 AS span_s,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS p99
           FROM runs WHERE agent_id = $1`,
        [agentId],
      );
      // Node to node: the next node's executor start minus the previous node's completion.
      const [dispatch] = await query<{ p50: number; p99: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM b.started_at - a.completed_at) * 1000) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM b.started_at - a.completed_at) * 1000) AS p99
           FROM runs r
           JOIN node_executions a ON a.run_id = r.id
           JOIN node_executions b ON b.run_id = r.id
           JOIN unnest($2::text[], $3::text[]) AS e(previous, next) ON a.node_id = e.previous AND b.node_id = e.next
          WHERE r.agent_id = $1 AND r.status = 'completed'`,
        [agentId, work.edges.map(([a]) => a), work.edges.map(([, b]) => b)],
      );
      // The same per edge (the provider flow's lanes differ: text_to_speech is heavy).
      const byEdge = await query<{ edge: string; p50: number; p99: number }>(
        `SELECT e.previous || '→' || e.next AS edge,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM b.started_at - a.completed_at) * 1000) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM b.started_at - a.completed_at) * 1000) AS p99
           FROM runs r
           JOIN node_executions a ON a.run_id = r.id
           JOIN node_executions b ON b.run_id = r.id
           JOIN unnest($2::text[], $3::text[]) WITH ORDINALITY AS e(previous, next, i)
             ON a.node_id = e.previous AND b.node_id = e.next
          WHERE r.agent_id = $1 AND r.status = 'completed'
          GROUP BY e.i, e.previous, e.next ORDER BY e.i`,
        [agentId, work.edges.map(([a]) => a), work.edges.map(([, b]) => b)],
      );
      // The queue hop every run takes once (instant nodes take none): its creation, as the create
      // statement stamped it, to the start of its root node's executor in the worker.
      const [hop] = await query<{ p50: number; p99: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM n.started_at - r.created_at) * 1000) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM n.started_at - r.created_at) * 1000) AS p99
           FROM runs r JOIN node_executions n ON n.run_id = r.id AND n.node_id = $2
          WHERE r.agent_id = $1 AND r.status = 'completed'`,
        [agentId, work.root],
      );
      // The double records every request: forget this phase's (memory), they are not looked at.
      if (double) double.requests.length = 0;
      const accepted = r['2xx'];
      const completed = Number(runs!.completed);
      const perRun = (x: number) => x / Math.max(1, accepted);
      return {
        name,
        workload: work.name,
        offered: rate ? `${rate}/s` : `max, ${CONNECTIONS} conns${amount ? `, ${amount} runs` : ''}`,
        accepted,
        rejected: r.non2xx + r.errors + r.timeouts,
        acceptedPerS: accepted / loadS,
        completed,
        failed: Number(runs!.failed),
        runsPerS: completed / Math.max(0.001, runs!.span_s),
        latencyP50: runs!.p50,
        latencyP99: runs!.p99,
        dispatchP50: dispatch!.p50,
        dispatchP99: dispatch!.p99,
        dispatchByEdge: byEdge.map((e) => `${e.edge} ${e.p50.toFixed(1)} / ${e.p99.toFixed(1)}`).join(', '),
        queueHopP50: hop!.p50,
        queueHopP99: hop!.p99,
        commitsPerRun: perRun(after.commits - before.commits - own),
        writeXactsPerRun: perRun(after.xid - before.xid),
        gatewayCpuUsPerRun: perRun(cpu.gateway),
        workerCpuUsPerRun: perRun(cpu.worker),
        postgresCpuUsPerRun: perRun(cpu.postgres),
        redisCpuUsPerRun: perRun(cpu.redis),
      };
    };

    const text = runs('text')
      ? {
          warmUp: WARM_UP_S > 0 ? await runPhase(TEXT, 'warm-up', FIXED_RATE, WARM_UP_S) : undefined,
          fixed: await runPhase(TEXT, 'fixed', FIXED_RATE),
          max: await runPhase(TEXT, 'max', undefined),
        }
      : undefined;
    // Shorter, and the unbounded phase a fixed number of runs: the provider flow completes far fewer
    // runs per second than are created, and the backlog is waited out before the next phase.
    const provider = runs('provider')
      ? {
          warmUp: WARM_UP_S > 0 ? await runPhase(PROVIDER, 'warm-up', FIXED_RATE, WARM_UP_S) : undefined,
          fixed: await runPhase(PROVIDER, 'fixed', FIXED_RATE, PROVIDER_DURATION_S),
          max: await runPhase(PROVIDER, 'max', undefined, undefined, PROVIDER_MAX_RUNS),
        }
      : undefined;

    const queueBound = bull.jobsPerSecond / 3;
    const pgBound = updateTps / 4;
    const bound = Math.min(queueBound, pgBound);
    const f1 = (x: number) => x.toFixed(1);
    const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    const cpuColumns = (p: Phase) =>
      [p.gatewayCpuUsPerRun, p.workerCpuUsPerRun, p.postgresCpuUsPerRun, p.redisCpuUsPerRun]
        .map((x) => x.toFixed(0))
        .join(' / ');
    const phaseRow = (p: Phase, ceiling: number) =>
      `| ${p.workload} ${p.name} | ${p.offered} | ${p.accepted} (${p.acceptedPerS.toFixed(0)}/s) | ${p.rejected} | ${p.completed} | ${p.failed} | ` +
      `${p.runsPerS.toFixed(0)} | ${(p.runsPerS / ceiling).toFixed(2)} | ${f1(p.latencyP50)} / ${f1(p.latencyP99)} | ` +
      `${f1(p.dispatchP50)} / ${f1(p.dispatchP99)} | ${f1(p.queueHopP50)} / ${f1(p.queueHopP99)} | ${f1(p.commitsPerRun)} | ${f1(p.writeXactsPerRun)} | ` +
      `${cpuColumns(p)} |`;
    const PHASE_HEADER =
      '| phase | offered | created (2xx/s) | errors | completed | not completed | runs/s end to end | ratio to bound | create→completed p50 / p99 ms | dispatch p50 / p99 ms | create→root start p50 / p99 ms | commits/run | write xacts/run* | CPU µs/run: gateway / worker / PostgreSQL / Redis |\n' +
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
    console.log(
      `\nbench:runs — flows through POST /runs, 1 gateway + 1 worker ` +
        `(light concurrency ${workerConfig.WORKER_LIGHT_CONCURRENCY}, heavy ${workerConfig.WORKER_HEAVY_CONCURRENCY}, ` +
        `ORG_MAX_EXECUTING_NODES ${workerConfig.ORG_MAX_EXECUTING_NODES}), one organization, ${DURATION_S} s per phase after ${WARM_UP_S} s of ` +
        `unmeasured warm-up at ${FIXED_RATE}/s, same machine; ` +
        `load average ${loadAverage()}\n`,
    );
    console.log('| ceiling (same run) | per s | bound on runs/s |');
    console.log('|---|---:|---:|');
    if (text) {
      console.log(
        `| BullMQ no-op jobs, worker process, concurrency ${workerConfig.WORKER_LIGHT_CONCURRENCY} | ${bull.jobsPerSecond.toFixed(0)} | ÷3 = ${queueBound.toFixed(0)} (text) |`,
      );
      console.log(
        `| PostgreSQL single-row UPDATE, 8 clients | ${updateTps.toFixed(0)} | ÷4 = ${pgBound.toFixed(0)} (text) |`,
      );
    }
    if (provider) {
      console.log(
        `| BullMQ FlowProducer chains of the same 3 calls (child → parent → grandparent), openai SDK, one process, concurrency ${workerConfig.WORKER_LIGHT_CONCURRENCY}, ` +
          `${chain.chains} chains in ${chain.seconds.toFixed(1)} s, ${(chain.cpuUs / chain.chains).toFixed(0)} µs CPU per chain (its process) | ${chain.chainsPerSecond.toFixed(0)} | ${chain.chainsPerSecond.toFixed(0)} (provider) |`,
      );
    }
    console.log(`\n${PHASE_HEADER}`);
    if (text) for (const p of [text.fixed, text.max]) console.log(phaseRow(p, bound));
    if (provider) for (const p of [provider.fixed, provider.max]) console.log(phaseRow(p, chain.chainsPerSecond));
    console.log(
      '\nruns/s end to end = completed runs ÷ (last completed_at − first created_at). ratio to bound: text, ' +
        'min(BullMQ/3, UPDATE/4); provider, FlowProducer chains/s. commits/run: pg_stat_database ' +
        'xact_commit of the bench database (read-only statements outside a transaction count too) ÷ runs created.\n' +
        "dispatch: the next node's executor start − the previous node's executor end. The text flow's nodes are " +
        'instant: executed in the worker that made them ready, committed with it (ADR 0013). The provider flow ' +
        '(text_input → llm → llm → llm, against the OpenAI double answering at once) queues each node ' +
        'after its root on the light lane. create→root start: ' +
        "its root's executor start − the run's created_at (its create statement), through BullMQ.\n" +
        '* transaction ids assigned, cluster-wide: other databases on the same server count too.\n' +
        'CPU µs/run: user + system time from /proc, from the start of the load until every run ended, ÷ runs created; ' +
        'the worker with its child processes; PostgreSQL and Redis: every process of that name on the machine ' +
        '(the OpenAI double runs in the benchmark process: not counted).\n',
    );
    if (text) {
      const ratio = text.max.runsPerS / bound;
      console.log(
        `Target throughput (text): ≥ ${TARGET_RUNS_PER_S} runs/s, i.e. ratio ≥ ${TARGET_RATIO} to min(BullMQ/3, UPDATE/4) = ${bound.toFixed(0)} → ` +
          `${text.max.runsPerS.toFixed(0)} runs/s, ratio ${ratio.toFixed(2)}: ratio ${verdict(ratio >= TARGET_RATIO)}, ` +
          `absolute ${verdict(text.max.runsPerS >= TARGET_RUNS_PER_S)}`,
      );
      console.log(
        `Target dispatch overhead at ${FIXED_RATE} runs/s (text): p50 ≤ ${TARGET_DISPATCH_P50_MS} ms, p99 ≤ ${TARGET_DISPATCH_P99_MS} ms → ` +
          `${f1(text.fixed.dispatchP50)} / ${f1(text.fixed.dispatchP99)} ms: ` +
          `${verdict(text.fixed.dispatchP50 <= TARGET_DISPATCH_P50_MS && text.fixed.dispatchP99 <= TARGET_DISPATCH_P99_MS)} ` +
          `(node to node, in the worker: this flow's nodes are instant). Its one queue hop, create→root start: ` +
          `${f1(text.fixed.queueHopP50)} / ${f1(text.fixed.queueHopP99)} ms against the same bounds: ` +
          `${verdict(text.fixed.queueHopP50 <= TARGET_DISPATCH_P50_MS && text.fixed.queueHopP99 <= TARGET_DISPATCH_P99_MS)}`,
      );
    }
    if (provider) {
      const ratio = provider.max.runsPerS / chain.chainsPerSecond;
      console.log(
        `Target throughput (provider): ratio ≥ ${TARGET_PROVIDER_RATIO} to FlowProducer chains/s = ${chain.chainsPerSecond.toFixed(0)} → ` +
          `${provider.max.runsPerS.toFixed(0)} runs/s, ratio ${ratio.toFixed(2)}: ${verdict(ratio >= TARGET_PROVIDER_RATIO)}`,
      );
      const { dispatchP50, dispatchP99 } = provider.fixed;
      console.log(
        `Target dispatch at ${FIXED_RATE} runs/s (provider, every node queued): p50 ≤ ${TARGET_DISPATCH_P50_MS} ms, p99 ≤ ${TARGET_DISPATCH_P99_MS} ms → ` +
          `${f1(dispatchP50)} / ${f1(dispatchP99)} ms: ` +
          `${verdict(dispatchP50 <= TARGET_DISPATCH_P50_MS && dispatchP99 <= TARGET_DISPATCH_P99_MS)}; ` +
          `per edge p50 / p99 ms: ${provider.fixed.dispatchByEdge}`,
      );
      const both = (p: Phase) => p.gatewayCpuUsPerRun + p.workerCpuUsPerRun;
      console.log(
        `CPU per run, gateway + worker (µs), provider beside text: ` +
          `${FIXED_RATE}/s ${both(provider.fixed).toFixed(0)}` +
          (text
            ? ` vs ${both(text.fixed).toFixed(0)} (×${(both(provider.fixed) / both(text.fixed)).toFixed(1)})`
            : '') +
          `; max ${both(provider.max).toFixed(0)}` +
          (text ? ` vs ${both(text.max).toFixed(0)} (×${(both(provider.max) / both(text.max)).toFixed(1)})` : ''),
      );
    }
    console.log('(exit code 0 whether or not targets are met: figures swing with the machine’s load)');
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    await Promise.all([db.end(), stats.end(), double?.close()]);
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
