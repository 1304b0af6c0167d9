import type { ChildProcess } from 'node:child_process';
import { figuresTable, measure } from './lib/measure';
import { freePort, startTs, stopChild, waitFor } from './lib/proc';
import { createOrg, createTextAgent, startBenchStack } from './lib/stack';

// `npm run bench:gateway`: authenticated catalog reads through the real
// gateway, beside a ceiling measured in the same run on the same machine (a
// bare Express route doing one Redis and one PostgreSQL primary-key round trip
// with `pg`). Figures swing 10–30% between runs; the ratio is what matters.

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const TARGET_RATIO = 0.7;
const TARGET_P99_MS = 25;

async function main() {
  const stack = await startBenchStack();
  const gatewayPort = await freePort();
  const ceilingPort = await freePort();
  const children: ChildProcess[] = [];

  try {
    const gateway = startTs('apps/gateway/src/main.ts', {
      ...stack.serviceEnv,
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      // The benchmark measures throughput, not the limiter's refusals.
      RATE_LIMIT_DEFAULT_PER_MINUTE: '10000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    });
    const ceilingServer = startTs('bench/ceiling-server.ts', {
      PORT: String(ceilingPort),
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
    });
    children.push(gateway, ceilingServer);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(`${base}/readyz`);

    const auth = await createOrg(base, stack.adminToken, 1000);
    let agentId = '';
    for (let i = 0; i < 40; i++) agentId = await createTextAgent(base, auth, `Bench agent ${i}`);
    await waitFor(`http://127.0.0.1:${ceilingPort}/agents/${agentId}`);

    const opts = { connections: CONNECTIONS, durationS: DURATION_S };
    const ceiling = await measure(
      'ceiling: Express + Redis GET + pg SELECT',
      ceilingServer.pid!,
      `http://127.0.0.1:${ceilingPort}/agents/${agentId}`,
      opts,
    );
    const byId = await measure('GET /agents/{id} (X-Api-Key)', gateway.pid!, `${base}/agents/${agentId}`, {
      ...opts,
      headers: auth,
    });
    const list = await measure('GET /agents?limit=20 (X-Api-Key)', gateway.pid!, `${base}/agents?limit=20`, {
      ...opts,
      headers: auth,
    });

    console.log(`\nbench:gateway — ${CONNECTIONS} connections, ${DURATION_S} s each, same machine\n`);
    console.log(figuresTable([ceiling, byId, list], ceiling.rps));
    const ratio = byId.rps / ceiling.rps;
    const ok = ratio >= TARGET_RATIO && byId.p99 <= TARGET_P99_MS && byId.errors === 0;
    console.log(
      `\nTarget GET /agents/{id}: ≥ ${TARGET_RATIO}× ceiling and p99 ≤ ${TARGET_P99_MS} ms → ` +
        `${ratio.toFixed(2)}×, p99 ${byId.p99} ms: ${ok ? 'MET' : 'NOT MET'}`,
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
