import { execFileSync, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { startOpenAIDouble } from '@weft/testing';
import { paced } from './lib/paced';
import {
  cpuMicros,
  freePort,
  loadAverage,
  MEASURED_NODE,
  postJson,
  runTsForOutput,
  sleep,
  startBuilt,
  statusBytes,
  stopChild,
  treeCpuMicros,
  waitFor,
} from './lib/proc';
import { benchGatewayEnv, createOrg, profileArgs, PROVIDER_FLOW, startBenchStack } from './lib/stack';

// `npm run bench:providers`: the work Weft exists for, chains of calls to an AI
// provider that each wait on the network, measured beside a bare BullMQ chain
// making the same calls with the same `openai` SDK in the same run.
//
// The provider is the OpenAI double (packages/testing), started in this
// process on loopback, answering each chat completion after CALL_MS. Weft runs
// the production build (dist/, as its container image does) of one gateway and
// one worker, against a PostgreSQL and a Redis of the benchmark's own, so that
// their CPU time is this benchmark's alone. Phases:
//   bare      bench/ceiling-provider-chain.ts: RUNS chains of three calls, IN_FLIGHT at once.
//   flow      Weft: RUNS runs of text_input → llm → llm → llm created as fast as accepted,
//             the worker's light lane and the organization's share set to IN_FLIGHT.
//   defaults  every setting at its default; OFFERED runs/s of the same flow for OFFERED_S.
//   under share, backlog
//             the organization's share at BACKLOG_SHARE provider calls, offered 0.6× what the
//             share completes, then OFFERED runs/s, so that most nodes wait for a slot: CPU per
//             run of the backlog beside the same share without one.
//   in-flight LONG_CALLS runs of text_input → llm, created while the worker is stopped, each
//             call answering after LONG_CALL_MS, the light lane and share set to LONG_CALLS: the
//             calls the double holds at once, the worker's event-loop delay p99 and its peak RSS.
// Exits 0 whether targets are met or not.

const CALL_MS = Number(process.env.BENCH_CALL_MS ?? 200);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
const RUNS = Number(process.env.BENCH_PROVIDER_RUNS ?? 2_000);
const OFFERED = Number(process.env.BENCH_OFFERED ?? 100);
const OFFERED_S = Number(process.env.BENCH_OFFERED_S ?? 10);
const BACKLOG_SHARE = Number(process.env.BENCH_BACKLOG_SHARE ?? 20);
const LONG_CALLS = Number(process.env.BENCH_LONG_CALLS ?? 2_000);
const LONG_CALL_MS = Number(process.env.BENCH_LONG_CALL_MS ?? 5_000);
const CONNECTIONS = 50;
const DRAIN_TIMEOUT_MS = 300_000;
const TARGET_CPU_RATIO = 1.5;
const TARGET_RUNS_RATIO = 0.8;
const TARGET_DEFAULT_P50_MS = 1_500;
const TARGET_LOOP_P99_MS = 100;
const TARGET_RSS_MIB = 600;
/** Backlog CPU per run ÷ the same flow's without one; above 1 by the noise of a shared machine at most. */
const TARGET_BACKLOG_RATIO = 1.1;
const PHASES = new Set(
  (process.env.BENCH_PHASES ?? 'bare,flow,defaults,backlog,in-flight').split(',').map((p) => p.trim()),
);

const llm = (id: string, prompt: string) => ({ id, type: 'llm', inputs: { prompt } });
const THREE_CALLS = PROVIDER_FLOW;
const ONE_CALL = {
  nodes: [{ id: 'topic', type: 'text_input', description: 'Topic' }, llm('a', 'topic')],
  outputs: [{ id: 'a', type: 'text', description: 'The answer' }],
};
const INPUTS = [{ id: 'topic', value: 'a short note about looms' }];

interface Cpu {
  app: number;
  postgres: number;
  redis: number;
}

interface Result {
  phase: string;
  settings: string;
  runs: number;
  completed: number;
  runsPerS: number;
  /** Paced phases: runs completed per second from the first completion to the last. */
  completionsPerS?: number;
  p50: number;
  p99: number;
  /** µs per completed run. */
  cpu: Cpu;
  peakRssMiB: number;
  extra?: string;
}

async function main() {
  const stack = await startBenchStack({ name: 'bench-providers', dedicated: true });
  const double = await startOpenAIDouble();
  double.chatLatencyMs = CALL_MS;
  // The answer's chunks at once after the latency: a call takes CALL_MS, streamed or not.
  double.chunkGapMs = 0;
  const db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  const redis = new Redis(stack.redisUrl);
  const postgresPid = await postmasterPid(db);
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
  const services = () => ({ postgres: treeCpuMicros(postgresPid), redis: cpuMicros(redisPid) });
  const results: Result[] = [];
  const providerEnv = {
    OPENAI_API_KEY: 'sk-bench-double',
    OPENAI_BASE_URL: double.baseURL,
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
  };

  try {
    if (PHASES.has('bare')) {
      const before = services();
      const out = JSON.parse(
        await runTsForOutput(
          'bench/ceiling-provider-chain.ts',
          {
            REDIS_URL: stack.redisUrl,
            REDIS_PREFIX: `${stack.redisPrefix}-bare`,
            CONCURRENCY: String(IN_FLIGHT),
            CHAINS: String(RUNS),
            OPENAI_BASE_URL: double.baseURL,
          },
          MEASURED_NODE,
        ),
      ) as { chains: number; seconds: number; chainsPerSecond: number; cpuUs: number; peakRssBytes: number };
      const after = services();
      const per = (x: number) => x / out.chains;
      results.push({
        phase: 'bare',
        settings: `BullMQ FlowProducer chains, worker concurrency ${IN_FLIGHT}`,
        runs: out.chains,
        completed: out.chains,
        runsPerS: out.chainsPerSecond,
        p50: NaN,
        p99: NaN,
        cpu: { app: per(out.cpuUs), postgres: 0, redis: per(after.redis - before.redis) },
        peakRssMiB: out.peakRssBytes / 2 ** 20,
      });
    }

    // One gateway and one worker with `env`; `measure` runs inside the returned CPU window.
    const withWeft = async (
      env: Record<string, string>,
      measure: (ctx: {
        base: string;
        auth: Record<string, string>;
        worker: ChildProcess;
        metricsUrl: string;
      }) => Promise<Omit<Result, 'cpu' | 'peakRssMiB'> & { agentId: string }>,
    ): Promise<Result> => {
      const gatewayPort = await freePort();
      const workerPort = await freePort();
      const serviceEnv = { ...providerEnv, ...env };
      const gateway = await startBuilt(
        'apps/gateway/src/main.ts',
        benchGatewayEnv(stack, gatewayPort, serviceEnv),
        profileArgs(),
      );
      const worker = await startBuilt(
        'apps/worker/src/main.ts',
        {
          ...stack.serviceEnv,
          ...serviceEnv,
          WORKER_HTTP_PORT: String(workerPort),
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
        },
        profileArgs(),
      );
      try {
        const base = `http://127.0.0.1:${gatewayPort}`;
        await waitFor(`${base}/readyz`);
        await waitFor(`http://127.0.0.1:${workerPort}/readyz`);
        const auth = await createOrg(base, stack.adminToken, 1_000_000_000);
        // Unmeasured: JIT, pools and prepared statements of fresh processes.
        await warmUp(base, auth);
        const app = () => cpuMicros(gateway.pid!) + cpuMicros(worker.pid!);
        const before = { app: app(), ...services() };
        const r = await measure({ base, auth, worker, metricsUrl: `http://127.0.0.1:${workerPort}/metrics` });
        const after = { app: app(), ...services() };
        const per = (x: number) => x / Math.max(1, r.completed);
        const { agentId: _agent, ...rest } = r;
        return {
          ...rest,
          cpu: {
            app: per(after.app - before.app),
            postgres: per(after.postgres - before.postgres),
            redis: per(after.redis - before.redis),
          },
          peakRssMiB: statusBytes(worker.pid!, 'VmHWM') / 2 ** 20,
        };
      } finally {
        await Promise.all([stopChild(gateway), stopChild(worker)]);
      }
    };

    const createAgent = async (base: string, auth: Record<string, string>, name: string, flow: object) =>
      (await postJson(`${base}/agents`, auth, { name, description: name, tags: ['bench'], flow })).id as string;

    const warmUp = async (base: string, auth: Record<string, string>) => {
      const agentId = await createAgent(base, auth, 'Warm-up', THREE_CALLS);
      await autocannon({
        url: `${base}/runs`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, inputs: INPUTS }),
        connections: 10,
        amount: 200,
      });
      await drain(agentId);
    };

    const drain = async (agentId: string) => {
      for (const deadline = Date.now() + DRAIN_TIMEOUT_MS; ;) {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM runs WHERE agent_id = $1 AND status = 'in_progress'`,
          [agentId],
        );
        if (Number(rows[0]!.n) === 0) return;
        if (Date.now() > deadline) throw new Error(`${rows[0]!.n} runs not ended after ${DRAIN_TIMEOUT_MS / 1000} s`);
        await sleep(100);
      }
    };

    const figures = async (agentId: string) => {
      const { rows } = await db.query<{
        runs: string;
        completed: string;
        span_s: number;
        completing_s: number;
        p50: number;
        p99: number;
      }>(
        `SELECT count(*) AS runs, count(*) FILTER (WHERE status = 'completed') AS completed,
                extract(epoch FROM max(completed_at) - min(created_at))::float8 AS span_s,
                extract(epoch FROM max(completed_at) - min(completed_at))::float8 AS completing_s,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS p50,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - created_at) * 1000) AS p99
           FROM runs WHERE agent_id = $1`,
        [agentId],
      );
      const r = rows[0]!;
      const completed = Number(r.completed);
      return {
        runs: Number(r.runs),
        completed,
        runsPerS: completed / Math.max(0.001, r.span_s),
        /** The rate runs completed at, first completion to last: what a paced phase sustains. */
        completionsPerS: (completed - 1) / Math.max(0.001, r.completing_s),
        p50: r.p50,
        p99: r.p99,
      };
    };

    const burst = async (base: string, auth: Record<string, string>, agentId: string, amount: number) => {
      await autocannon({
        url: `${base}/runs`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, inputs: INPUTS }),
        connections: CONNECTIONS,
        amount,
      });
    };

    const offer = async (base: string, auth: Record<string, string>, agentId: string, rate: number) => {
      await paced({
        url: `${base}/runs`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: () => JSON.stringify({ agent_id: agentId, inputs: INPUTS }),
        rate,
        durationS: OFFERED_S,
        connections: CONNECTIONS,
      });
    };

    if (PHASES.has('flow')) {
      const share = { WORKER_LIGHT_CONCURRENCY: String(IN_FLIGHT), ORG_MAX_EXECUTING_NODES: String(IN_FLIGHT) };
      results.push(
        await withWeft(share, async ({ base, auth }) => {
          const agentId = await createAgent(base, auth, 'Three calls', THREE_CALLS);
          await burst(base, auth, agentId, RUNS);
          await drain(agentId);
          return {
            phase: 'flow',
            settings: Object.entries(share)
              .map(([k, v]) => `${k}=${v}`)
              .join(' '),
            agentId,
            ...(await figures(agentId)),
          };
        }),
      );
    }

    const offered = (phase: string, env: Record<string, string>, rate: number) =>
      withWeft(env, async ({ base, auth }) => {
        const agentId = await createAgent(base, auth, `Three calls ${phase}`, THREE_CALLS);
        await offer(base, auth, agentId, rate);
        await drain(agentId);
        return {
          phase,
          settings: `${rate} runs/s offered for ${OFFERED_S} s${Object.entries(env)
            .map(([k, v]) => `, ${k}=${v}`)
            .join('')}`,
          agentId,
          ...(await figures(agentId)),
        };
      });
    if (PHASES.has('defaults')) results.push(await offered('defaults', {}, OFFERED));
    if (PHASES.has('backlog')) {
      const share = { ORG_MAX_EXECUTING_NODES: String(BACKLOG_SHARE) };
      // The share completes BACKLOG_SHARE calls per CALL_MS: under it, nothing waits for a slot.
      const capacity = BACKLOG_SHARE / ((3 * CALL_MS) / 1000);
      results.push(await offered('under share', share, Math.max(1, Math.floor(capacity * 0.6))));
      results.push(await offered('backlog', share, OFFERED));
    }

    if (PHASES.has('in-flight')) {
      const env = { WORKER_LIGHT_CONCURRENCY: String(LONG_CALLS), ORG_MAX_EXECUTING_NODES: String(LONG_CALLS) };
      results.push(
        await withWeft(env, async ({ base, auth, worker, metricsUrl }) => {
          const agentId = await createAgent(base, auth, 'One long call', ONE_CALL);
          double.chatLatencyMs = LONG_CALL_MS;
          try {
            // The runs are created while the worker is stopped (SIGSTOP), so that what is measured is
            // the worker taking them all on at once, not how fast the gateway creates them.
            worker.kill('SIGSTOP');
            try {
              await burst(base, auth, agentId, LONG_CALLS);
            } finally {
              worker.kill('SIGCONT');
            }
            let peak = 0;
            const sampler = setInterval(() => (peak = Math.max(peak, double.chatsInFlight)), 50);
            // Starts the event-loop histogram afresh, past the pause the stop itself recorded.
            await sleep(100);
            await fetch(metricsUrl).then((r) => r.text());
            await drain(agentId);
            clearInterval(sampler);
            const metrics = await fetch(metricsUrl).then((r) => r.text());
            const loopP99 = Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(metrics)?.[1]) * 1000;
            return {
              phase: 'in-flight',
              settings: `${Object.entries(env)
                .map(([k, v]) => `${k}=${v}`)
                .join(' ')}, calls of ${LONG_CALL_MS} ms`,
              agentId,
              ...(await figures(agentId)),
              extra: `calls in flight at once: ${peak}; event-loop delay p99 ${loopP99.toFixed(1)} ms`,
            };
          } finally {
            double.chatLatencyMs = CALL_MS;
          }
        }),
      );
    }
  } finally {
    await Promise.all([db.end(), double.close()]);
    redis.disconnect();
    await stack.stop();
  }
  report(results);
}

async function postmasterPid(db: Pool): Promise<number> {
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const { readFileSync } = await import('node:fs');
  return Number(readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
}

function report(results: Result[]) {
  const ms = (us: number) => (us / 1000).toFixed(2);
  const total = (c: Cpu) => c.app + c.postgres + c.redis;
  console.log(
    `\nbench:providers — provider calls of ${CALL_MS} ms (OpenAI double, loopback, openai SDK), one organization, ` +
      `production build on Node ${execFileSync(MEASURED_NODE, ['--version'], { encoding: 'utf8' }).trim()}, ` +
      `own PostgreSQL and Redis; load average ${loadAverage()}\n`,
  );
  console.log(
    '| phase | settings | runs | completed | runs/s | created→completed p50 / p99 ms | CPU ms/run: app / PostgreSQL / Redis = total | worker peak RSS MiB |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.phase} | ${r.settings} | ${r.runs} | ${r.completed} | ${r.runsPerS.toFixed(0)} | ` +
        `${Number.isNaN(r.p50) ? '—' : `${r.p50.toFixed(0)} / ${r.p99.toFixed(0)}`} | ` +
        `${ms(r.cpu.app)} / ${ms(r.cpu.postgres)} / ${ms(r.cpu.redis)} = ${ms(total(r.cpu))} | ${r.peakRssMiB.toFixed(0)} |`,
    );
  }
  console.log(
    '\napp: the gateway and the worker (Weft), or the one bare process. CPU: user + system from /proc over the phase, ÷ completed runs; ' +
      'PostgreSQL: its postmaster and every backend. runs/s: completed ÷ (last completed − first created).\n',
  );
  const find = (phase: string) => results.find((r) => r.phase === phase);
  const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
  const bare = find('bare');
  const flow = find('flow');
  if (bare && flow) {
    const cpuRatio = total(flow.cpu) / total(bare.cpu);
    const runsRatio = flow.runsPerS / bare.runsPerS;
    console.log(
      `Target CPU per run ≤ ${TARGET_CPU_RATIO}× the bare chain's: ${ms(total(flow.cpu))} vs ${ms(total(bare.cpu))} ms, ` +
        `×${cpuRatio.toFixed(2)}: ${verdict(cpuRatio <= TARGET_CPU_RATIO)}`,
    );
    console.log(
      `Target runs/s ≥ ${TARGET_RUNS_RATIO}× the bare chain's: ${flow.runsPerS.toFixed(0)} vs ${bare.runsPerS.toFixed(0)}, ` +
        `×${runsRatio.toFixed(2)}: ${verdict(runsRatio >= TARGET_RUNS_RATIO)}`,
    );
  }
  const defaults = find('defaults');
  if (defaults) {
    const rate = defaults.completionsPerS ?? NaN;
    const sustained = defaults.completed === defaults.runs && rate >= OFFERED * 0.95;
    console.log(
      `Target out of the box: ${OFFERED} runs/s sustained with p50 ≤ ${TARGET_DEFAULT_P50_MS} ms: ` +
        `completed at ${rate.toFixed(0)} runs/s (first completion to last), p50 ${defaults.p50.toFixed(0)} ms: ` +
        `${verdict(sustained && defaults.p50 <= TARGET_DEFAULT_P50_MS)}`,
    );
  }
  const backlog = find('backlog');
  const under = find('under share');
  if (backlog && under) {
    const ratio = total(backlog.cpu) / total(under.cpu);
    console.log(
      `Target a backlog costs no CPU per run: ${ms(total(backlog.cpu))} vs ${ms(total(under.cpu))} ms with the same share and none, ` +
        `×${ratio.toFixed(2)}: ${verdict(ratio <= TARGET_BACKLOG_RATIO)} (p50 ${backlog.p50.toFixed(0)} vs ${under.p50.toFixed(0)} ms: its runs waited)`,
    );
  }
  const inFlight = find('in-flight');
  if (inFlight) {
    const loop = Number(/p99 (\S+) ms/.exec(inFlight.extra ?? '')?.[1]);
    const peak = Number(/at once: (\d+)/.exec(inFlight.extra ?? '')?.[1]);
    console.log(
      `Target ${LONG_CALLS} calls of ${LONG_CALL_MS} ms in flight on one worker, event-loop p99 ≤ ${TARGET_LOOP_P99_MS} ms, ` +
        `RSS ≤ ${TARGET_RSS_MIB} MiB: ${inFlight.extra}, RSS ${inFlight.peakRssMiB.toFixed(0)} MiB: ` +
        `${verdict(peak >= LONG_CALLS && loop <= TARGET_LOOP_P99_MS && inFlight.peakRssMiB <= TARGET_RSS_MIB)}`,
    );
  }
  console.log('(exit code 0 whether or not targets are met: figures swing with the machine’s load)');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
