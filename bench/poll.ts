import type { ChildProcess } from 'node:child_process';
import { figuresTable, measure } from './lib/measure';
import { freePort, loadAverage, postJson, sleep, startTs, stopChild, waitFor } from './lib/proc';
import { describeServerLatency, withServerLatency } from './lib/server-latency';
import { createOrg, createTextAgent, startBenchGateway, startBenchStack } from './lib/stack';

// `npm run bench:poll`: GET /runs/{id} through the real gateway while runs
// execute (a worker process runs them; background-runs.ts keeps creating
// runs at a modest rate from a process of its own), beside the ceiling of
// bench:gateway (a bare Express route doing one Redis and one PostgreSQL
// round trip), measured in the same run under the same background load. Then the same read at a fixed
// 1,000 req/s, with the background runs and again once they have ended.
// Exits 0 whether targets are met or not.

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const BACKGROUND_RUNS_PER_S = Number(process.env.BENCH_BACKGROUND_RUNS_PER_S ?? 50);
const FIXED_RATE = 1000;
const TARGET_RATIO = 0.75;
const TARGET_P99_MS = 10;

async function main() {
  const stack = await startBenchStack();
  const gatewayPort = await freePort();
  const ceilingPort = await freePort();
  const children: ChildProcess[] = [];
  let background: ChildProcess | undefined;
  const stopBackground = async () => {
    if (!background) return;
    await stopChild(background);
    background = undefined;
  };

  try {
    // BENCH_CPU_PROF=1 profiles the gateway (lib/stack.ts).
    const gateway = startBenchGateway(stack, gatewayPort);
    const worker = startTs('apps/worker/src/main.ts', {
      ...stack.serviceEnv,
      // Any free port for /metrics: a dev stack may hold the default.
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    });
    const ceilingServer = startTs('bench/ceiling-server.ts', {
      PORT: String(ceilingPort),
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
    });
    children.push(gateway, worker, ceilingServer);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(`${base}/readyz`);
    const auth = await createOrg(base, stack.adminToken, 10_000_000);
    const agentId = await createTextAgent(base, auth, 'Bench poll');
    await waitFor(`http://127.0.0.1:${ceilingPort}/agents/${agentId}`);

    // Runs created in the background for the whole measurement; the polled ids
    // are the most recent ones, so most reads find a run in progress or just ended.
    const runIds: string[] = [];
    let created = 0;
    const create = async () => {
      const run = await postJson(`${base}/runs`, auth, {
        agent_id: agentId,
        inputs: [{ id: 'topic', value: 'first line\nsecond line' }],
      });
      runIds.push(run.id as string);
      created++;
    };
    for (let i = 0; i < 20; i++) await create();
    // BENCH_BACKGROUND_RUNS_PER_S=0: no background runs (the machine's floor without them).
    if (BACKGROUND_RUNS_PER_S > 0) {
      background = startTs(
        'bench/background-runs.ts',
        {
          BENCH_BASE_URL: base,
          BENCH_RATE: String(BACKGROUND_RUNS_PER_S),
          BENCH_AUTH_HEADERS: JSON.stringify(auth),
          BENCH_AGENT_ID: agentId,
        },
        [],
        true,
      );
      background.on('message', (m: { id: string }) => {
        runIds.push(m.id);
        created++;
      });
    }
    await sleep(1000);

    let n = 0;
    const recent = (req: { path?: string }) => {
      req.path = `/runs/${runIds[runIds.length - 1 - (n++ % Math.min(200, runIds.length))]}`;
      return req as never;
    };
    const opts = { connections: CONNECTIONS, durationS: DURATION_S };
    const ceiling = await measure(
      'ceiling: Express + Redis GET + pg SELECT',
      ceilingServer.pid!,
      `http://127.0.0.1:${ceilingPort}/agents/${agentId}`,
      opts,
    );
    const poll = await measure('GET /runs/{id} (X-Api-Key)', gateway.pid!, `${base}/runs/${runIds[0]}`, {
      ...opts,
      headers: auth,
      setupRequest: recent,
    });
    // The same paced load on the ceiling server: the tail this machine gives any server.
    const ceilingFixed = await measure(
      `ceiling at a fixed ${FIXED_RATE} req/s`,
      ceilingServer.pid!,
      `http://127.0.0.1:${ceilingPort}/agents/${agentId}`,
      { ...opts, overallRate: FIXED_RATE, warmUp: false },
    );
    const [fixed, fixedServer] = await withServerLatency(base, '/runs/:run_id', () =>
      measure(`GET /runs/{id} at a fixed ${FIXED_RATE} req/s`, gateway.pid!, `${base}/runs/${runIds[0]}`, {
        ...opts,
        headers: auth,
        setupRequest: recent,
        overallRate: FIXED_RATE,
        warmUp: false,
      }),
    );
    await stopBackground();
    // The same paced read once the background runs have ended: what the gateway gives
    // when this 2-core machine is not also executing runs.
    await sleep(2000);
    const [fixedQuiet, fixedQuietServer] = await withServerLatency(base, '/runs/:run_id', () =>
      measure(
        `GET /runs/{id} at a fixed ${FIXED_RATE} req/s, background runs ended`,
        gateway.pid!,
        `${base}/runs/${runIds[0]}`,
        { ...opts, headers: auth, setupRequest: recent, overallRate: FIXED_RATE, warmUp: false },
      ),
    );

    console.log(
      `\nbench:poll — ${CONNECTIONS} connections, ${DURATION_S} s each, same machine, ` +
        `${BACKGROUND_RUNS_PER_S} runs/s created in the background (${created} in all); load average ${loadAverage()}\n`,
    );
    console.log(figuresTable([ceiling, poll, ceilingFixed, fixed, fixedQuiet], ceiling.rps));
    console.log(
      `\nThe gateway's own request durations (its /metrics histogram) at a fixed ${FIXED_RATE} req/s:\n` +
        `- with background runs: ${describeServerLatency(fixedServer)}\n` +
        `- background runs ended: ${describeServerLatency(fixedQuietServer)}`,
    );
    const ratio = poll.rps / ceiling.rps;
    const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    console.log(
      `\nTarget GET /runs/{id} at ${CONNECTIONS} connections: ≥ ${TARGET_RATIO}× ceiling → ${ratio.toFixed(2)}×, ` +
        `${poll.errors} errors: ${verdict(ratio >= TARGET_RATIO && poll.errors === 0)}`,
    );
    console.log(
      `Target GET /runs/{id} at a fixed ${FIXED_RATE} req/s: p99 ≤ ${TARGET_P99_MS} ms → p99 ${fixed.p99} ms ` +
        `(${fixed.rps.toFixed(0)} req/s achieved): ${verdict(fixed.p99 <= TARGET_P99_MS && fixed.errors === 0)}`,
    );
    console.log(
      `The same once the background runs ended: p99 ${fixedQuiet.p99} ms: ` +
        `${verdict(fixedQuiet.p99 <= TARGET_P99_MS && fixedQuiet.errors === 0)}`,
    );
    console.log('(exit code 0 whether or not targets are met: figures swing with the machine’s load)');
  } finally {
    await stopBackground();
    await Promise.all(children.map((c) => stopChild(c)));
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
