import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { applyMigrations } from '@weft/db/src/migrations';
import { ensureBucket, ensureDatabase, ensurePostgres, ensureRedis, ensureS3, withDatabaseName } from '@weft/devstack';

// `npm run bench:gateway`: authenticated catalog reads through the real
// gateway, beside a ceiling measured in the same run on the same machine (a
// bare Express route doing one Redis and one PostgreSQL primary-key round trip
// with `pg`). Figures swing 10–30% between runs; the ratio is what matters.

const ROOT = path.resolve(__dirname, '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const TARGET_RATIO = 0.7;
const TARGET_P99_MS = 25;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function startTs(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function postJson(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** CPU time the serving process spent per request: steadier than req/s on a busy machine. */
  cpuUsPerRequest: number;
  errors: number;
}

/** User + system CPU time of a process so far, in microseconds (Linux /proc). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = 100;

async function measure(
  name: string,
  server: ChildProcess,
  url: string,
  headers: Record<string, string> = {},
): Promise<Figures> {
  // A short warm-up lets V8 optimise the hot path before the measured window.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const cpuBefore = cpuMicros(server.pid!);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  const cpu = cpuMicros(server.pid!) - cpuBefore;
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUsPerRequest: cpu / Math.max(1, r.requests.total),
    errors: r.non2xx + r.errors + r.timeouts,
  };
}

async function main() {
  const dataDir = path.join(ROOT, '.weft', 'bench');
  const pg = await ensurePostgres({ url: process.env.DATABASE_URL, dataDir: path.join(dataDir, 'postgres') });
  const redis = await ensureRedis({ url: process.env.REDIS_URL, dataDir: path.join(dataDir, 'redis') });
  const s3 = await ensureS3({ endpoint: process.env.S3_ENDPOINT, dataDir: path.join(dataDir, 's3') });
  const databaseUrl = withDatabaseName(pg.url, `weft_bench_${Date.now()}`);
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
  const bucket = `weft-bench-${Date.now()}`;
  await ensureBucket(s3.settings, bucket);

  const adminToken = randomBytes(24).toString('hex');
  const gatewayPort = await freePort();
  const ceilingPort = await freePort();
  const children: ChildProcess[] = [];
  const stopAll = async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all([pg.stop(), redis.stop(), s3.stop()]);
  };

  try {
    const gateway = startTs('apps/gateway/src/main.ts', {
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `bench-${Date.now()}`,
      S3_ENDPOINT: s3.settings.endpoint,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: s3.settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.settings.secretAccessKey,
      ADMIN_TOKEN: adminToken,
      // The benchmark measures throughput, not the limiter's refusals.
      RATE_LIMIT_DEFAULT_PER_MINUTE: '10000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    });
    const ceilingServer = startTs('bench/ceiling-server.ts', {
      PORT: String(ceilingPort),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
    });
    children.push(gateway, ceilingServer);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(`${base}/readyz`);

    const org = await postJson(
      `${base}/admin/organizations`,
      { authorization: `Bearer ${adminToken}` },
      {
        name: 'bench',
        credits: 1000,
      },
    );
    const apiKey = org.api_key as string;
    const auth = { 'x-api-key': apiKey };
    let agentId = '';
    for (let i = 0; i < 40; i++) {
      const agent = await postJson(`${base}/agents`, auth, {
        name: `Bench agent ${i}`,
        description: 'Three text nodes',
        tags: ['bench'],
        estimated_cost: 1,
        flow: {
          nodes: [
            { id: 'topic', type: 'text_input', description: 'Topic' },
            { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic'] } },
            { id: 'split', type: 'text_split', inputs: { text: 'join' } },
          ],
          outputs: [{ id: 'split', type: 'text', description: 'Lines' }],
        },
      });
      agentId = agent.id as string;
    }
    await waitFor(`http://127.0.0.1:${ceilingPort}/agents/${agentId}`);

    const ceiling = await measure(
      'ceiling: Express + Redis GET + pg SELECT',
      ceilingServer,
      `http://127.0.0.1:${ceilingPort}/agents/${agentId}`,
    );
    const byId = await measure('GET /agents/{id} (X-Api-Key)', gateway, `${base}/agents/${agentId}`, auth);
    const list = await measure('GET /agents?limit=20 (X-Api-Key)', gateway, `${base}/agents?limit=20`, auth);

    console.log(`\nbench:gateway — ${CONNECTIONS} connections, ${DURATION_S} s each, same machine\n`);
    console.log('| endpoint | req/s | p50 ms | p99 ms | ratio to ceiling | server CPU µs/req | errors |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const f of [ceiling, byId, list]) {
      console.log(
        `| ${f.name} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${(f.rps / ceiling.rps).toFixed(2)} | ${f.cpuUsPerRequest.toFixed(0)} | ${f.errors} |`,
      );
    }
    const ratio = byId.rps / ceiling.rps;
    const ok = ratio >= TARGET_RATIO && byId.p99 <= TARGET_P99_MS && byId.errors === 0;
    console.log(
      `\nTarget GET /agents/{id}: ≥ ${TARGET_RATIO}× ceiling and p99 ≤ ${TARGET_P99_MS} ms → ` +
        `${ratio.toFixed(2)}×, p99 ${byId.p99} ms: ${ok ? 'MET' : 'NOT MET'}`,
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    await stopAll();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
