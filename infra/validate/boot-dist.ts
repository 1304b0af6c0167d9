import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  ensureBucket,
  ensureDatabase,
  ensurePostgres,
  ensureRedis,
  ensureS3,
  withDatabaseName,
  type S3Settings,
} from '@weft/devstack';
import Redis from 'ioredis';
import pg from 'pg';
import { checkDistDependencies } from './dist-dependencies';
import { parseStages, effective, execForm, stageNamed, type Stage } from './dockerfile-stages';
import { PATHS, ROOT, readText } from './files';

// `npm run images:check` (a step of .ci/run), after `npm run build`: checks
// that the images' production-only install holds what the bundles require
// (dist-dependencies.ts), then runs each image's command from infra/docker/Dockerfile outside Docker against real
// services (found or started as the test suite does): the migration, then the
// gateway until /readyz and the worker until /healthz answer, the bundled
// `weft` command creating an organization and publishing catalog/, and finally
// SIGTERM, which both must answer by exiting 0.

const WAIT_MS = 30_000;
const log = (line: string) => console.log(`[boot-dist] ${line}`);

/**
 * `docker run <target> [args]` minus tini: ENTRYPOINT plus CMD, or plus `args`
 * (which replace CMD, as in docker run), from WORKDIR /app (here: the repo root).
 */
function imageCommand(stages: Stage[], target: string, args?: string[]): string[] {
  const stage = stageNamed(stages, target);
  const command = [
    ...(execForm(effective(stages, stage, 'ENTRYPOINT')) ?? []),
    ...(args ?? execForm(effective(stages, stage, 'CMD')) ?? []),
  ];
  const start = command.indexOf('node');
  if (start < 0) throw new Error(`target ${target} does not run node: ${command.join(' ')}`);
  return command.slice(start + 1);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Child {
  name: string;
  exited: Promise<number | string>;
  stop(): Promise<number | string>;
}

function start(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${name}] `;
  child.stdout.on('data', (b: Buffer) => process.stdout.write(prefixLines(prefix, b)));
  child.stderr.on('data', (b: Buffer) => process.stderr.write(prefixLines(prefix, b)));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    name,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      const result = await exited;
      clearTimeout(killer);
      return result;
    },
  };
}

function prefixLines(prefix: string, chunk: Buffer): string {
  return chunk
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((line) => `${prefix}${line}\n`)
    .join('');
}

async function waitForOk(url: string, child: Child): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let last = 'no answer';
  let exited: number | string | undefined;
  void child.exited.then((code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`${child.name} exited (${exited}) before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      last = `${res.status} ${(await res.text()).slice(0, 300)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer 200 within ${WAIT_MS} ms (last: ${last})`);
}

/**
 * The bundled gateway finds dist/console beside itself (apps/gateway/src/console/console-dir.ts),
 * as in the image: it serves the built index.html at /console/, or says the console is not built.
 */
async function checkConsole(baseUrl: string): Promise<string> {
  const index = path.join(ROOT, 'dist', 'console', 'index.html');
  const res = await fetch(`${baseUrl}/console/`);
  const body = await res.text();
  if (fs.existsSync(index)) {
    if (res.status !== 200 || body !== fs.readFileSync(index, 'utf8')) {
      throw new Error(`GET /console/ answered ${res.status}, not dist/console/index.html: ${body.slice(0, 300)}`);
    }
    return 'the gateway serves dist/console at /console/';
  }
  if (res.status !== 404 || !body.includes('not built')) {
    throw new Error(`GET /console/ without dist/console/index.html answered ${res.status}: ${body.slice(0, 300)}`);
  }
  return 'dist/console has no index.html: the gateway answers /console/ with its not-built 404';
}

function runNode(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8', timeout: WAIT_MS });
  if (result.status !== 0) {
    throw new Error(
      `node ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

function s3Env(s3: S3Settings, bucket: string): NodeJS.ProcessEnv {
  return {
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
  };
}

async function main(): Promise<void> {
  // The AWS SDK (devstack's S3 client, here and in the children) warns about Node 20 on every start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  for (const entry of ['dist/apps/gateway/src/main.js', 'dist/apps/worker/src/main.js']) {
    if (!fs.existsSync(path.join(ROOT, entry))) throw new Error(`${entry} is missing: run npm run build first`);
  }
  const missing = checkDistDependencies();
  if (missing.length > 0) throw new Error(`the images' production install would lack packages:\n${missing.join('\n')}`);
  log('every package the server bundles require is a production dependency of their workspace');
  const stages = parseStages(readText(PATHS.dockerfile));
  const started = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-boot-dist-'));
  const services: Array<{ stop(): Promise<void> }> = [];
  const children: Child[] = [];
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  let databaseUrl: string | undefined;
  let redisUrl: string | undefined;
  const redisPrefix = `weft-boot-${suffix}`;
  try {
    const [postgres, redis, s3] = await Promise.all([
      ensurePostgres({
        url: process.env.DATABASE_URL || undefined,
        dataDir: path.join(dataDir, 'pg'),
        embeddedPort: 0,
        durable: false,
      }),
      ensureRedis({ url: process.env.REDIS_URL || undefined, dataDir: path.join(dataDir, 'redis'), embeddedPort: 0 }),
      ensureS3({ endpoint: process.env.S3_ENDPOINT || undefined, dataDir: path.join(dataDir, 's3'), embeddedPort: 0 }),
    ]);
    services.push(postgres, redis, s3);
    log(`services: postgres=${postgres.source} redis=${redis.source} s3=${s3.source}`);
    databaseUrl = withDatabaseName(postgres.url, `weft_boot_${suffix}`);
    redisUrl = redis.url;
    await ensureDatabase(databaseUrl);
    const bucket = 'weft-boot-dist';
    await ensureBucket(s3.settings, bucket);

    const [gatewayPort, workerPort] = await Promise.all([freePort(), freePort()]);
    const adminToken = randomBytes(24).toString('hex');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redisPrefix,
      ...s3Env(s3.settings, bucket),
      LOG_LEVEL: 'warn',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };

    log(`migrate: node ${imageCommand(stages, 'migrate').join(' ')}`);
    process.stdout.write(runNode(imageCommand(stages, 'migrate'), env));

    const gateway = start('gateway', imageCommand(stages, 'gateway'), {
      ...env,
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: adminToken,
    });
    const worker = start('worker', imageCommand(stages, 'worker'), {
      ...env,
      WORKER_HTTP_PORT: String(workerPort),
      WORKER_SHUTDOWN_GRACE_SECONDS: '10',
    });
    children.push(gateway, worker);
    await Promise.all([
      waitForOk(`http://127.0.0.1:${gatewayPort}/readyz`, gateway),
      waitForOk(`http://127.0.0.1:${workerPort}/healthz`, worker),
    ]);
    log(`gateway /readyz and worker /healthz answered 200 after ${Date.now() - started} ms`);
    log(await checkConsole(`http://127.0.0.1:${gatewayPort}`));

    // What docs/operations.md#deployment-docker-compose tells an operator to do, with the image's `weft`.
    const weft = (args: string[]) => imageCommand(stages, 'cli', args);
    const cliEnv = { ...env, WEFT_URL: `http://127.0.0.1:${gatewayPort}`, WEFT_ADMIN_TOKEN: adminToken };
    const created = runNode(weft(['admin', 'org', 'create', '--name', 'boot-dist', '--credits', '10']), cliEnv);
    const apiKey = /"(weft_[A-Za-z0-9_-]+)"/.exec(created)?.[1];
    if (!apiKey) throw new Error(`weft admin org create printed no API key:\n${created}`);
    runNode(weft(['publish', 'catalog']), { ...cliEnv, WEFT_API_KEY: apiKey });
    log('weft admin org create and weft publish catalog succeeded');

    const [gatewayExit, workerExit] = await Promise.all([gateway.stop(), worker.stop()]);
    if (gatewayExit !== 0 || workerExit !== 0) {
      throw new Error(`after SIGTERM: gateway exited ${gatewayExit}, worker exited ${workerExit} (expected 0)`);
    }
    log(`both exited 0 on SIGTERM; ${Date.now() - started} ms in all`);
  } finally {
    await Promise.allSettled(children.map((c) => c.stop()));
    await cleanUp(databaseUrl, redisUrl, redisPrefix);
    await Promise.allSettled(services.reverse().map((s) => s.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function cleanUp(databaseUrl: string | undefined, redisUrl: string | undefined, prefix: string): Promise<void> {
  if (redisUrl) {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 })) {
        if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
      }
    } catch (err) {
      log(`could not remove Redis keys ${prefix}:*: ${(err as Error).message}`);
    } finally {
      redis.disconnect();
    }
  }
  if (databaseUrl) {
    const name = new URL(databaseUrl).pathname.slice(1);
    const client = new pg.Client({ connectionString: withDatabaseName(databaseUrl, 'postgres') });
    try {
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } catch (err) {
      log(`could not drop database ${name}: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`[boot-dist] FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
