import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { parseExposition } from '@weft/metrics';
import { checkEvictionPolicy, watchEvictionPolicy } from '@weft/queue';
import { createTestEnv, startDedicatedRedis, waitFor, type DedicatedRedis, type TestEnv } from '@weft/testing';
import { Redis } from 'ioredis';

// The worker's HTTP listener in a real worker process, and the Redis
// eviction-policy check over a redis-server of the test's own (the shared
// Redis must not be reconfigured).

// Each test starts a worker process from source: tens of seconds on a busy machine.
jest.setTimeout(120_000);

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

let env: TestEnv;
let lru: DedicatedRedis;

beforeAll(async () => {
  // One after the other: afterAll must be able to stop whatever started.
  lru = await startDedicatedRedis(['--maxmemory-policy', 'allkeys-lru']);
  env = await createTestEnv();
});
afterAll(async () => {
  await lru?.stop();
  await env?.cleanup();
});

interface Worker {
  child: ChildProcess;
  port: number;
  /** Log lines so far, parsed. */
  lines: { level: number; msg: string; [k: string]: unknown }[];
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<number | null>;
}

async function startWorker(extra: Record<string, string> = {}): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...env.env,
      LOG_LEVEL: 'info',
      WORKER_HTTP_PORT: '0',
      WORKER_HTTP_HOST: '127.0.0.1',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // BullMQ prints its own eviction-policy warning there; the log lines are on stdout.
  child.stderr!.resume();
  const lines: Worker['lines'] = [];
  const exited = once(child, 'exit');
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Worker['lines'][number]);
    } catch {
      // Not a log line.
    }
  });
  const listening = await waitFor('the worker to listen', () => lines.find((l) => l.msg === 'worker http listening'), {
    timeoutMs: 60_000,
  });
  const port = listening.port as number;
  return {
    child,
    port,
    lines,
    get: (p, headers = {}) => fetch(`http://127.0.0.1:${port}${p}`, { headers }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

test('checkEvictionPolicy accepts noeviction and explains any other policy', async () => {
  const shared = new Redis(env.redisUrl);
  const evicting = new Redis(lru.url);
  try {
    expect(await checkEvictionPolicy(shared)).toEqual({ ok: true, policy: 'noeviction' });
    const bad = await checkEvictionPolicy(evicting);
    expect(bad).toMatchObject({ ok: false, policy: 'allkeys-lru' });
    expect(bad.message).toMatch(/allkeys-lru/);
    expect(bad.message).toMatch(/silently drop queued work/);
    expect(bad.message).toMatch(/maxmemory-policy noeviction/);
  } finally {
    shared.disconnect();
    evicting.disconnect();
  }
});

test('watchEvictionPolicy logs a wrong policy at error level, at once and after a reconnection', async () => {
  const redis = new Redis(lru.url);
  const logger = { error: jest.fn(), warn: jest.fn() };
  try {
    await redis.ping();
    watchEvictionPolicy(redis, logger);
    await waitFor('the first error', () => logger.error.mock.calls.length === 1);
    expect(logger.error.mock.calls[0]![0]).toEqual({ maxmemoryPolicy: 'allkeys-lru' });
    expect(logger.error.mock.calls[0]![1]).toMatch(/silently drop queued work/);
    redis.disconnect(true);
    await waitFor('the check after reconnecting', () => logger.error.mock.calls.length === 2);
  } finally {
    redis.disconnect();
  }
});

test('a worker answers /healthz, /readyz and /metrics', async () => {
  const worker = await startWorker();
  try {
    // Listening comes before the connections are up: ready once they are, however long that takes.
    await waitFor('the worker to be ready', async () => (await worker.get('/readyz')).status === 200, {
      timeoutMs: 60_000,
    });
    expect(await (await worker.get('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await worker.get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ok',
      checks: { database: 'ok', redis: 'ok', storage: 'ok', redis_policy: 'ok', processors: 'ok' },
    });
    const metrics = await worker.get('/metrics');
    expect(metrics.status).toBe(200);
    const names = parseExposition(await metrics.text()).seriesNames();
    for (const name of ['weft_job_wait_seconds_bucket', 'weft_runs_ended_total', 'process_cpu_seconds_total']) {
      expect(names).toContain(name);
    }
    expect((await worker.get('/readyz?verbose=1')).status).toBe(200);
    expect((await worker.get('/elsewhere')).status).toBe(404);
    expect(worker.lines.some((l) => l.level >= 50)).toBe(false);
  } finally {
    expect(await worker.stop()).toBe(0);
  }
});

test('over a Redis that may evict keys: an error at start-up and /readyz 503 saying why', async () => {
  const worker = await startWorker({ REDIS_URL: lru.url });
  try {
    const logged = await waitFor('the start-up error', () =>
      worker.lines.find((l) => l.level === 50 && /noeviction/.test(l.msg)),
    );
    expect(logged.msg).toMatch(/maxmemory-policy allkeys-lru: under memory pressure it may silently drop queued work/);
    const ready = await worker.get('/readyz');
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { status: string; checks: Record<string, string>; messages: string[] };
    expect(body.status).toBe('unavailable');
    expect(body.checks).toMatchObject({ redis: 'ok', redis_policy: 'fail' });
    expect(body.messages).toEqual([expect.stringMatching(/requires 'maxmemory-policy noeviction'/)]);
    // Liveness is not readiness: restarting would not fix the Redis configuration.
    expect((await worker.get('/healthz')).status).toBe(200);
  } finally {
    await worker.stop();
  }
});

test('with METRICS_TOKEN, the worker wants it for /metrics but not for its probes', async () => {
  const token = 'worker-metrics-token-0123';
  const worker = await startWorker({ METRICS_TOKEN: token });
  try {
    expect((await worker.get('/metrics')).status).toBe(401);
    expect((await worker.get('/metrics', { Authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await worker.get('/healthz')).status).toBe(200);
  } finally {
    await worker.stop();
  }
});

test('a taken WORKER_HTTP_PORT stops the worker with one line saying which setting to change', async () => {
  const holder = net.createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const { port } = holder.address() as net.AddressInfo;
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env.env, WORKER_HTTP_PORT: String(port), WORKER_HTTP_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];

    expect(code).toBe(1);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toMatch(/EADDRINUSE/);
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((l) => l.level === 60).map((l) => l.msg)).toEqual([
      `Port ${port} on 127.0.0.1 is already in use: set WORKER_HTTP_PORT to a free port (0 picks one)`,
    ]);
  } finally {
    holder.close();
  }
});
