import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { Pool } from 'pg';
import { withDatabaseName } from '@weft/devstack';
import { loadConfig as loadWorkerConfig } from '../apps/worker/src/config';
import { paced } from './lib/paced';
import { pgUpdateTps } from './lib/pg-ceiling';
import {
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
import { createOrg, createTextAgent, profileArgs, startBenchGateway, startBenchStack } from './lib/stack';

// `npm run bench:runs`: runs of the three-node text flow created through the
// real gateway and executed by a real worker process, first at a fixed rate,
// then as fast as they are accepted. Figures come from PostgreSQL (the runs'
// and node rows' timestamps, pg_stat_database) and are printed beside two
// ceilings measured in the same run on the same machine: BullMQ no-op jobs/s
// (a worker process with the real worker's concurrency) and single-row UPDATE
// commits/s at 8 clients. BENCH_CPU_PROF=1 writes --cpu-prof profiles of the
// gateway and worker under .weft/bench/prof. Exits 0 whether targets are met or not.

const FIXED_RATE = Number(process.env.BENCH_FIXED_RATE ?? 300);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/** Unmeasured load before the phases: JIT, connection pools and prepared statements of fresh processes. */
const WARM_UP_S = Number(process.env.BENCH_WARM_UP_S ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TARGET_RUNS_PER_S = 1000;
const TARGET_RATIO = 0.3;
const TARGET_DISPATCH_P50_MS = 2;
const TARGET_DISPATCH_P99_MS = 10;
/** PostgreSQL 15 flushes an idle backend's statistics within 10 s. */
const STATS_FLUSH_MS = 11_000;

interface Phase {
  name: string;
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
  queueHopP50: number;
  queueHopP99: number;
  commitsPerRun: number;
  /** Transaction ids assigned (writing transactions), cluster-wide: other databases' writes count too. */
  writeXactsPerRun: number;
  gatewayCpuUsPerRun: number;
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
  // Any free port for the worker's /metrics listener: a dev stack may hold the default.
  const workerEnv = { ...stack.serviceEnv, WORKER_HTTP_PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' };
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
    const updateTps = await pgUpdateTps(stack.databaseUrl, 8, 5_000);
    const bull = JSON.parse(
      await runTsForOutput('bench/ceiling-bullmq.ts', {
        REDIS_URL: stack.redisUrl,
        REDIS_PREFIX: `${stack.redisPrefix}-ceiling`,
        CONCURRENCY: String(workerConfig.WORKER_LIGHT_CONCURRENCY),
        BENCH_DURATION_MS: '5000',
      }),
    ) as { jobsPerSecond: number };

    const gateway = startBenchGateway(stack, gatewayPort, nodeArgs);
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

    const runPhase = async (name: string, rate: number | undefined, durationS = DURATION_S): Promise<Phase> => {
      const agentId = await createTextAgent(base, auth, `Bench ${name}`);
      const body = JSON.stringify({ agent_id: agentId, inputs: [{ id: 'topic', value: 'first line\nsecond line' }] });
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
              duration: durationS,
            });
      await sleep(STATS_FLUSH_MS);
      await stats.query('SELECT pg_stat_clear_snapshot()');
      const before = await readStats();
      ownQueries = 0;
      const cpuNow = () => ({
        gateway: cpuMicros(gateway.pid!),
        worker: cpuMicros(worker.pid!),
        postgres: cpuMicrosOfCommand('postgres'),
        redis: cpuMicrosOfCommand('redis-server'),
      });
      const cpuBefore = cpuNow();
      // For whoever attaches a profiler to the load itself (perf record -a, say): the phase's load starts now.
      console.error(`[bench:runs] ${name} phase: load starts for ${durationS} s`);
      const r = await load();
      for (let deadline = Date.now() + 120_000; ;) {
        const [row] = await query<{ n: string }>(
          `SELECT count(*) AS n FROM runs WHERE agent_id = $1 AND status = 'in_progress'`,
          [agentId],
        );
        if (Number(row!.n) === 0) break;
        if (Date.now() > deadline) throw new Error(`${row!.n} runs still in progress after 120 s`);
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
          WHERE r.agent_id = $1 AND r.status = 'completed'
            AND ((a.node_id = 'topic' AND b.node_id = 'join') OR (a.node_id = 'join' AND b.node_id = 'split'))`,
        [agentId],
      );
      // The queue hop every run takes once (instant nodes take none): its creation, as the create
      // statement stamped it, to the start of its root node's executor in the worker.
      const [hop] = await query<{ p50: number; p99: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM n.started_at - r.created_at) * 1000) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM n.started_at - r.created_at) * 1000) AS p99
           FROM runs r JOIN node_executions n ON n.run_id = r.id AND n.node_id = 'topic'
          WHERE r.agent_id = $1 AND r.status = 'completed'`,
        [agentId],
      );
      const accepted = r['2xx'];
      const completed = Number(runs!.completed);
      const perRun = (x: number) => x / Math.max(1, accepted);
      return {
        name,
        offered: rate ? `${rate}/s` : `max, ${CONNECTIONS} conns`,
        accepted,
        rejected: r.non2xx + r.errors + r.timeouts,
        acceptedPerS: accepted / durationS,
        completed,
        failed: Number(runs!.failed),
        runsPerS: completed / Math.max(0.001, runs!.span_s),
        latencyP50: runs!.p50,
        latencyP99: runs!.p99,
        dispatchP50: dispatch!.p50,
        dispatchP99: dispatch!.p99,
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

    if (WARM_UP_S > 0) await runPhase('warm-up', FIXED_RATE, WARM_UP_S);
    const fixed = await runPhase('fixed', FIXED_RATE);
    const max = await runPhase('max', undefined);

    const queueBound = bull.jobsPerSecond / 3;
    const pgBound = updateTps / 4;
    const bound = Math.min(queueBound, pgBound);
    const f1 = (x: number) => x.toFixed(1);
    console.log(
      `\nbench:runs — 3-node text flow through POST /runs, 1 gateway + 1 worker ` +
        `(light concurrency ${workerConfig.WORKER_LIGHT_CONCURRENCY}), ${DURATION_S} s per phase after ${WARM_UP_S} s of ` +
        `unmeasured warm-up at ${FIXED_RATE}/s, same machine; ` +
        `load average ${loadAverage()}\n`,
    );
    console.log('| ceiling (same run) | per s | bound on runs/s |');
    console.log('|---|---:|---:|');
    console.log(
      `| BullMQ no-op jobs, worker process, concurrency ${workerConfig.WORKER_LIGHT_CONCURRENCY} | ${bull.jobsPerSecond.toFixed(0)} | ÷3 = ${queueBound.toFixed(0)} |`,
    );
    console.log(`| PostgreSQL single-row UPDATE, 8 clients | ${updateTps.toFixed(0)} | ÷4 = ${pgBound.toFixed(0)} |`);
    console.log(
      '\n| phase | offered | created (2xx/s) | errors | completed | not completed | runs/s end to end | ratio to bound | create→completed p50 / p99 ms | dispatch p50 / p99 ms | create→root start p50 / p99 ms | commits/run | write xacts/run* | CPU µs/run: gateway / worker / PostgreSQL / Redis |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const p of [fixed, max]) {
      console.log(
        `| ${p.name} | ${p.offered} | ${p.accepted} (${p.acceptedPerS.toFixed(0)}/s) | ${p.rejected} | ${p.completed} | ${p.failed} | ` +
          `${p.runsPerS.toFixed(0)} | ${(p.runsPerS / bound).toFixed(2)} | ${f1(p.latencyP50)} / ${f1(p.latencyP99)} | ` +
          `${f1(p.dispatchP50)} / ${f1(p.dispatchP99)} | ${f1(p.queueHopP50)} / ${f1(p.queueHopP99)} | ${f1(p.commitsPerRun)} | ${f1(p.writeXactsPerRun)} | ` +
          `${[p.gatewayCpuUsPerRun, p.workerCpuUsPerRun, p.postgresCpuUsPerRun, p.redisCpuUsPerRun].map((x) => x.toFixed(0)).join(' / ')} |`,
      );
    }
    console.log(
      '\nruns/s end to end = completed runs ÷ (last completed_at − first created_at). commits/run: pg_stat_database ' +
        'xact_commit of the bench database (read-only statements outside a transaction count too) ÷ runs created.\n' +
        "dispatch: the next node's executor start − the previous node's executor end (the nodes of this flow are " +
        'instant: executed in the worker that made them ready, committed with it, ADR 0013). create→root start: ' +
        "its root's executor start − the run's created_at (its create statement), through BullMQ.\n" +
        '* transaction ids assigned, cluster-wide: other databases on the same server count too.\n' +
        'CPU µs/run: user + system time from /proc, from the start of the load until every run ended, ÷ runs created; ' +
        'PostgreSQL and Redis: every process of that name on the machine.\n',
    );
    const ratio = max.runsPerS / bound;
    const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    console.log(
      `Target throughput: ≥ ${TARGET_RUNS_PER_S} runs/s, i.e. ratio ≥ ${TARGET_RATIO} to min(BullMQ/3, UPDATE/4) = ${bound.toFixed(0)} → ` +
        `${max.runsPerS.toFixed(0)} runs/s, ratio ${ratio.toFixed(2)}: ratio ${verdict(ratio >= TARGET_RATIO)}, ` +
        `absolute ${verdict(max.runsPerS >= TARGET_RUNS_PER_S)}`,
    );
    console.log(
      `Target dispatch overhead at ${FIXED_RATE} runs/s: p50 ≤ ${TARGET_DISPATCH_P50_MS} ms, p99 ≤ ${TARGET_DISPATCH_P99_MS} ms → ` +
        `${f1(fixed.dispatchP50)} / ${f1(fixed.dispatchP99)} ms: ` +
        `${verdict(fixed.dispatchP50 <= TARGET_DISPATCH_P50_MS && fixed.dispatchP99 <= TARGET_DISPATCH_P99_MS)} ` +
        `(node to node, in the worker: this flow's nodes are instant). Its one queue hop, create→root start: ` +
        `${f1(fixed.queueHopP50)} / ${f1(fixed.queueHopP99)} ms against the same bounds: ` +
        `${verdict(fixed.queueHopP50 <= TARGET_DISPATCH_P50_MS && fixed.queueHopP99 <= TARGET_DISPATCH_P99_MS)}`,
    );
    console.log('(exit code 0 whether or not targets are met: figures swing with the machine’s load)');
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    await Promise.all([db.end(), stats.end()]);
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
