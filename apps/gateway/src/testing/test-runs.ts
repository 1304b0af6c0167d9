import { createDb } from '@weft/db';
import { queueShardCount, redisTargetOf } from '@weft/queue';
import { startNodeWorkers, type NodeWorkers } from '@weft/worker';
import type { NodeRoutes } from '@weft/nodes';
import { createStorage, storageConfigFromEnv } from '@weft/storage';
import { waitFor } from '@weft/testing';
import pino, { type Logger } from 'pino';
import request from 'supertest';
import { startTestGateway, type TestGateway } from './test-gateway';

export interface RunStack {
  gw: TestGateway;
  /** Starts another in-process worker over the same services (the first one starts with the stack). */
  startWorker(overrides?: Partial<WorkerSettings>): Promise<NodeWorkers>;
  close(): Promise<void>;
}

export interface WorkerSettings {
  lightConcurrency: number;
  heavyConcurrency: number;
  lockDurationMs: number;
  reconcileIntervalMs: number;
  reconcileStaleMs: number;
  outboundAllowList: string[];
  maxImagePixels: number;
  maxReadBytes: number;
  /** Defaults to the gateway's ORG_MAX_EXECUTING_NODES: both sides of the queues must agree. */
  orgMaxExecutingNodes?: number;
  /** Defaults to the gateway's ORG_MAX_MEDIA_NODES. */
  orgMaxMediaNodes?: number;
  /** Where node executions make their temporary directories (default: the system's). */
  nodeWorkRoot?: string;
  /** Where the worker logs; silent unless given. */
  logger?: Logger;
  /** The provider adapters the worker's provider nodes reach (createNodeRoutes of @weft/providers). */
  nodeRoutes?: NodeRoutes;
}

const DEFAULTS: WorkerSettings = {
  lightConcurrency: 20,
  heavyConcurrency: 2,
  lockDurationMs: 30_000,
  reconcileIntervalMs: 500,
  reconcileStaleMs: 2_000,
  outboundAllowList: ['127.0.0.1'],
  maxImagePixels: 100_000_000,
  maxReadBytes: 100 * 1024 * 1024,
};

/**
 * The gateway plus node workers in this process, over one isolated database,
 * Redis prefix and bucket: runs created through HTTP execute for real.
 */
export async function startRunStack(
  env: Record<string, string> = {},
  worker: Partial<WorkerSettings> | false = {},
): Promise<RunStack> {
  const gw = await startTestGateway(env);
  const started: { workers: NodeWorkers; close(): Promise<void> }[] = [];
  const startWorker = async (overrides: Partial<WorkerSettings> = {}) => {
    const settings = {
      orgMaxExecutingNodes: gw.config.ORG_MAX_EXECUTING_NODES,
      orgMaxMediaNodes: gw.config.ORG_MAX_MEDIA_NODES,
      ...DEFAULTS,
      ...overrides,
    };
    const db = createDb({ databaseUrl: gw.config.DATABASE_URL, poolSize: 5 });
    const storage = createStorage(storageConfigFromEnv(gw.config));
    const workers = await startNodeWorkers({
      db,
      storage,
      redis: redisTargetOf(gw.config),
      redisPrefix: gw.config.REDIS_PREFIX,
      queueShards: queueShardCount(gw.config),
      ...settings,
      logger: settings.logger ?? pino({ level: 'silent' }),
    });
    started.push({
      workers,
      async close() {
        await workers.close();
        storage.close();
        await db.close();
      },
    });
    return workers;
  };
  if (worker !== false) await startWorker(worker);
  return {
    gw,
    startWorker,
    async close() {
      for (const s of started.reverse()) await s.close();
      await gw.close();
    },
  };
}

export interface RunBody {
  id: string;
  status: string;
  [k: string]: unknown;
}

/** Polls GET `path` until the run has ended (or `until` holds). */
export async function pollRun(
  gw: TestGateway,
  apiKey: string,
  path: string,
  until: (run: RunBody) => boolean = (run) => run.status !== 'in_progress',
  timeoutMs = 15_000,
): Promise<RunBody> {
  return waitFor(
    `${path} to reach the expected state`,
    async () => {
      const res = await request(gw.app).get(path).set('X-Api-Key', apiKey);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return until(res.body as RunBody) ? (res.body as RunBody) : undefined;
    },
    { timeoutMs, intervalMs: 25 },
  );
}
