import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { applyMigrations } from '@weft/db';
import {
  databaseNameOf,
  ensureBucket,
  ensureDatabase,
  ensurePostgres,
  ensureRedis,
  ensureS3,
  quoteIdentifier,
  withDatabaseName,
  type S3Settings,
} from '@weft/devstack';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import type { ChildProcess } from 'node:child_process';
import { ROOT, freePort, postJson, startTs } from './proc';

// The services a benchmark runs against: PostgreSQL, Redis and S3 found or
// started by @weft/devstack (data under .weft/bench), a fresh database with
// the migrations applied, a fresh bucket and Redis prefix, and the
// environment the gateway and worker processes need to use them.

export interface BenchStack {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  adminToken: string;
  /** The S3 endpoint and the benchmark's own bucket. */
  s3: S3Settings & { bucket: string };
  /** DATABASE_URL, REDIS_URL, REDIS_PREFIX, S3_*, ADMIN_TOKEN for a gateway or worker process. */
  serviceEnv: Record<string, string>;
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  /** Names the data folder (.weft/<name>), the database, bucket and Redis prefix. */
  name?: string;
  /** Object storage other than @weft/devstack's (bench:assets runs s3rver in a process of its own). */
  startS3?: (dataDir: string) => Promise<{ settings: S3Settings; stop(): Promise<void> }>;
  /**
   * A PostgreSQL and a Redis of the benchmark's own, started on free ports (unless DATABASE_URL
   * or REDIS_URL name one), so that their CPU time is the benchmark's alone on a shared machine.
   */
  dedicated?: boolean;
}

export async function startBenchStack({
  name = 'bench',
  startS3,
  dedicated = false,
}: BenchStackOptions = {}): Promise<BenchStack> {
  const dataDir = path.join(ROOT, '.weft', name);
  const pg = await ensurePostgres({
    url: process.env.DATABASE_URL,
    dataDir: path.join(dataDir, 'postgres'),
    ...(dedicated ? { port: await freePort() } : {}),
  });
  const redis = await ensureRedis({
    url: process.env.REDIS_URL,
    dataDir: path.join(dataDir, 'redis'),
    ...(dedicated ? { port: await freePort() } : {}),
  });
  const s3 = startS3
    ? await startS3(path.join(dataDir, 's3'))
    : await ensureS3({ endpoint: process.env.S3_ENDPOINT, dataDir: path.join(dataDir, 's3') });
  const stamp = Date.now();
  const databaseUrl = withDatabaseName(pg.url, `weft_${name.replace(/-/g, '_')}_${stamp}`);
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
  const bucket = `weft-${name}-${stamp}`;
  await ensureBucket(s3.settings, bucket);
  const adminToken = randomBytes(24).toString('hex');
  const redisPrefix = `${name}-${stamp}`;
  return {
    databaseUrl,
    redisUrl: redis.url,
    redisPrefix,
    adminToken,
    s3: { ...s3.settings, bucket },
    serviceEnv: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redisPrefix,
      S3_ENDPOINT: s3.settings.endpoint,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: s3.settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.settings.secretAccessKey,
      ADMIN_TOKEN: adminToken,
    },
    async stop() {
      await dropBenchData(databaseUrl, redis.url, redisPrefix);
      await Promise.all([pg.stop(), redis.stop(), s3.stop()]);
    },
  };
}

/** A benchmark leaves nothing behind on servers it found running: its database and Redis keys go. */
export async function dropBenchData(databaseUrl: string, redisUrl: string, redisPrefix: string): Promise<void> {
  await Promise.all([dropDatabase(databaseUrl), deleteKeys(redisUrl, redisPrefix)]).catch((err: unknown) =>
    console.error(`bench: cleanup failed: ${(err as Error).message}`),
  );
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: withDatabaseName(databaseUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseNameOf(databaseUrl))} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

/** An organization with `credits`, created through the admin API; answers its API key header. */
export async function createOrg(base: string, adminToken: string, credits: number): Promise<Record<string, string>> {
  const org = await postJson(
    `${base}/admin/organizations`,
    { authorization: `Bearer ${adminToken}` },
    { name: 'bench', credits },
  );
  return { 'x-api-key': org.api_key as string };
}

/** The three-node text flow the benchmarks run: text_input → prompt_concatenate → text_split. */
export const TEXT_FLOW = {
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic' },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic'] } },
    { id: 'split', type: 'text_split', inputs: { text: 'join' } },
  ],
  outputs: [{ id: 'split', type: 'text', description: 'Lines' }],
};

export async function createTextAgent(base: string, auth: Record<string, string>, name: string): Promise<string> {
  const agent = await postJson(`${base}/agents`, auth, {
    name,
    description: 'Three text nodes',
    tags: ['bench'],
    // BENCH_ESTIMATED_COST=0 skips the credit reservation and settlement (no update
    // of the organization's row), to tell their cost apart from the rest of a run.
    estimated_cost: Number(process.env.BENCH_ESTIMATED_COST ?? 1),
    flow: TEXT_FLOW,
  });
  return agent.id as string;
}

/**
 * The provider flow of bench:runs and bench:providers: text_input → llm → llm → llm,
 * each node after the root a provider call through the queue (ADR 0013), each
 * prompt the answer before it.
 */
export const PROVIDER_FLOW = {
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic' },
    { id: 'outline', type: 'llm', inputs: { prompt: 'topic' } },
    { id: 'draft', type: 'llm', inputs: { prompt: 'outline' } },
    { id: 'polish', type: 'llm', inputs: { prompt: 'draft' } },
  ],
  outputs: [{ id: 'polish', type: 'text', description: 'The polished text' }],
};

/** An agent of PROVIDER_FLOW: three chained calls, as bench/ceiling-provider-chain.ts makes them. */
export async function createProviderAgent(base: string, auth: Record<string, string>, name: string): Promise<string> {
  const agent = await postJson(`${base}/agents`, auth, {
    name,
    description: 'Three chained llm calls',
    tags: ['bench'],
    flow: PROVIDER_FLOW,
  });
  return agent.id as string;
}

/**
 * Node flags of the benchmarked processes. BENCH_CPU_PROF=1: --cpu-prof profiles under
 * .weft/bench/prof (V8 samples wall time: a thread descheduled inside a syscall counts there).
 * BENCH_PERF=1: --perf-basic-prof, so that `perf record -a` names JavaScript functions (on-CPU time only).
 */
export function profileArgs(): string[] {
  return [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.join(ROOT, '.weft', 'bench', 'prof')] : []),
    ...(process.env.BENCH_PERF ? ['--perf-basic-prof'] : []),
  ];
}

/** The gateway's environment under benchmark: the stack's services with `env` added, and the rate limits out of the way. */
export function benchGatewayEnv(
  stack: BenchStack,
  port: number,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    ...stack.serviceEnv,
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    // The benchmark measures throughput, not the limiter's refusals.
    RATE_LIMIT_DEFAULT_PER_MINUTE: '10000000',
    RATE_LIMIT_CREATE_PER_MINUTE: '10000000',
    RATE_LIMIT_UPLOAD_PER_MINUTE: '10000000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
}

/** The gateway under benchmark, from its TypeScript sources, with benchGatewayEnv. */
export function startBenchGateway(
  stack: BenchStack,
  port: number,
  nodeArgs = profileArgs(),
  env: Record<string, string> = {},
): ChildProcess {
  return startTs('apps/gateway/src/main.ts', benchGatewayEnv(stack, port, env), nodeArgs);
}
