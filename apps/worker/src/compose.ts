import type { Db } from '@weft/db';
import {
  createEngine,
  createRunQueues,
  listenForCancellations,
  type Engine,
  type EngineHooks,
  type MediaTools,
} from '@weft/engine';
import type { FfmpegTools } from '@weft/media';
import type { NodeRoutes } from '@weft/nodes';
import type { Keyring } from '@weft/credentials';
import { guardedFetch, parseAllowList } from '@weft/nodes';
import {
  ASSET_QUEUE,
  createAssetJobProducer,
  createWebhookJobProducer,
  createWorkerConnection,
  startDeadWorkerSweep,
  type RedisTarget,
} from '@weft/queue';
import { ATTEMPT_TIMEOUT_MS, DeliveryStore } from '@weft/webhooks';
import { createUrlSigner, type Storage } from '@weft/storage';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { startAssetProcessor } from './processors/asset-jobs';
import { startNodeProcessors } from './processors/node-jobs';
import { startProviderCancelLoop } from './processors/provider-cancel-loop';
import { startReconcileLoop } from './processors/reconcile-loop';
import { startWebhookProcessor } from './processors/webhook-jobs';

// The worker's composition root: every client the processors use (Redis
// connections, queues, the engine) is built here, over the database and
// storage the process entry (main.ts) or a test harness hands in.

export interface NodeWorkersOptions {
  db: Db;
  storage: Storage;
  /** The deployment's Redis: each worker part opens its own connections to it. */
  redis: RedisTarget;
  redisPrefix: string;
  /** The light lane's shards (REDIS_QUEUE_SHARDS on a cluster, else 1): this worker takes jobs from each. */
  queueShards?: number;
  logger: Logger;
  /** Light jobs executed at once by this process, per shard of the light lane. */
  lightConcurrency: number;
  heavyConcurrency: number;
  /** A job not renewed for this long is taken over by another worker (its worker died). */
  lockDurationMs: number;
  /**
   * The process's heartbeat (main.ts): its id names the BullMQ workers, and
   * every `intervalMs` the active node jobs of workers whose heartbeat lapsed
   * are handed back (@weft/queue dead-worker-jobs.ts). Without it (a test
   * harness) neither happens.
   */
  heartbeat?: { workerId: string; intervalMs: number };
  outboundAllowList: readonly string[];
  /** Largest image (width × height) a node decodes: ASSET_MAX_IMAGE_PIXELS, the limit uploads have. */
  maxImagePixels: number;
  /** Largest input file a node reads into memory: ASSET_MAX_IMAGE_BYTES, as for asset processing. */
  maxReadBytes: number;
  /** Where node executions make their temporary directories (default: the system's temporary directory). */
  nodeWorkRoot?: string;
  reconcileIntervalMs: number;
  reconcileStaleMs: number;
  /** Light-lane nodes (provider calls) of one organization queued or executing at once, over every worker (ADR 0033). */
  orgMaxExecutingNodes: number;
  /** Heavy-lane nodes (media work) of one organization queued or executing at once, over every worker. */
  orgMaxMediaNodes: number;
  /** A slot whose job's worker stopped renewing it comes back after this long. */
  orgSlotLeaseMs?: number;
  /** Observers (the worker's metrics): runs ended here and node job timings. */
  hooks?: EngineHooks;
  /** ffmpeg, ffprobe and espeak-ng for media nodes (default: the ones on PATH). */
  mediaTools?: MediaTools;
  /** The provider adapters of the deployment, handed to provider nodes (ADR 0030); none when absent. */
  nodeRoutes?: NodeRoutes;
}

export interface NodeWorkers {
  engine: Engine;
  /** Stops taking jobs and waits for the ones in flight, then closes its connections. */
  close(): Promise<void>;
}

/**
 * Run execution inside a worker process: the engine over this worker's own
 * Redis connections, the node queues' processors, the cancel subscription
 * that aborts in-flight nodes, and the reconciler loop.
 */
export async function startNodeWorkers(options: NodeWorkersOptions): Promise<NodeWorkers> {
  const { logger } = options;
  const connection = createWorkerConnection(options.redis);
  const subscriber = createWorkerConnection(options.redis);
  for (const c of [connection, subscriber]) c.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const lease = options.orgSlotLeaseMs ? { leaseMs: options.orgSlotLeaseMs } : {};
  const queues = createRunQueues(
    connection,
    options.redisPrefix,
    {
      light: { maxPerOrg: options.orgMaxExecutingNodes, ...lease },
      heavy: { maxPerOrg: options.orgMaxMediaNodes, ...lease },
    },
    options.queueShards ?? 1,
  );
  const assetJobs = createAssetJobProducer(connection, options.redisPrefix, logger);
  const webhookJobs = createWebhookJobProducer(connection, options.redisPrefix, logger);
  const engine = createEngine({
    db: options.db,
    queues,
    publisher: connection,
    redisPrefix: options.redisPrefix,
    logger,
    storage: options.storage,
    outboundAllowList: options.outboundAllowList,
    imageLimits: { maxPixels: options.maxImagePixels },
    maxReadBytes: options.maxReadBytes,
    ...(options.mediaTools ? { mediaTools: options.mediaTools } : {}),
    ...(options.nodeRoutes ? { nodeRoutes: options.nodeRoutes } : {}),
    ...(options.nodeWorkRoot ? { nodeWorkRoot: options.nodeWorkRoot } : {}),
    assetJobs,
    webhookJobs,
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  await listenForCancellations(subscriber, options.redisPrefix, engine.inFlight);
  const processors = startNodeProcessors({
    engine,
    connection,
    queues,
    logger,
    lightConcurrency: options.lightConcurrency,
    heavyConcurrency: options.heavyConcurrency,
    lockDurationMs: options.lockDurationMs,
    workerName: options.heartbeat?.workerId,
    hooks: options.hooks,
  });
  // After the processors: a job handed back at start is taken by this worker too.
  const deadWorkerSweep =
    options.heartbeat &&
    startDeadWorkerSweep({
      redis: connection,
      prefix: options.redisPrefix,
      queues: [...queues.lightShards, queues.heavy],
      intervalMs: options.heartbeat.intervalMs,
      logger,
    });
  const reconciler = startReconcileLoop(engine, options.reconcileIntervalMs, options.reconcileStaleMs, logger);
  // As often as the reconciler: a job's first try waits LIVE_CANCEL_GRACE_MS after its run ended anyway.
  const providerCancels = startProviderCancelLoop(engine, options.reconcileIntervalMs, logger);

  return {
    engine,
    async close() {
      await reconciler.stop();
      await providerCancels.stop();
      await deadWorkerSweep?.stop();
      await processors.close();
      await queues.close();
      await assetJobs.close();
      await webhookJobs.close();
      subscriber.disconnect();
      connection.disconnect();
    },
  };
}

export interface AssetWorkerOptions {
  db: Db;
  storage: Storage;
  redis: RedisTarget;
  redisPrefix: string;
  logger: Logger;
  concurrency: number;
  maxPixels: number;
  maxImageBytes: number;
  ffmpeg: FfmpegTools;
  /** How often the sweeper runs, and how old a still-pending asset must be for it to act. */
  sweepIntervalMs: number;
  sweepStaleMs: number;
}

export interface AssetWorker {
  /** Stops taking jobs and waits for those in flight, then closes its connection. */
  close(): Promise<void>;
}

/** Processing of stored files (thumbnails, metadata) over this worker's own Redis connection. */
export async function startAssetWorker(options: AssetWorkerOptions): Promise<AssetWorker> {
  const { logger } = options;
  const connection = createWorkerConnection(options.redis);
  connection.on('error', (err) => logger.warn({ err: err.message }, 'asset worker redis error'));
  const queue = new Queue(ASSET_QUEUE, { connection, prefix: options.redisPrefix });
  const processor = await startAssetProcessor({
    connection,
    queue,
    redisPrefix: options.redisPrefix,
    logger,
    concurrency: options.concurrency,
    sweepIntervalMs: options.sweepIntervalMs,
    sweepStaleMs: options.sweepStaleMs,
    deps: {
      db: options.db,
      storage: options.storage,
      // ffmpeg fetches by presigned URL; fifteen minutes outlasts any probe.
      urls: createUrlSigner(options.storage, { ttlSeconds: 900 }),
      ffmpeg: options.ffmpeg,
      maxPixels: options.maxPixels,
      maxImageBytes: options.maxImageBytes,
    },
  });
  return {
    async close() {
      await processor.close();
      await queue.close();
      connection.disconnect();
    },
  };
}

export interface WebhookWorkerOptions {
  db: Db;
  redis: RedisTarget;
  redisPrefix: string;
  logger: Logger;
  /** CREDENTIALS_KEY: opens the signing secrets. Unset, attempts fail saying so. */
  keyring: Keyring | undefined;
  /** OUTBOUND_ALLOWED_HOSTS: what webhook URLs may reach despite the address rules. */
  outboundAllowList: readonly string[];
  concurrency: number;
  /** A delivery whose worker died is attempted again by another after this long (WORKER_LOCK_DURATION_MS). */
  lockDurationMs: number;
  /** Delays before each retry, in milliseconds. */
  retrySchedule: readonly number[];
  sweepIntervalMs: number;
  /** A receiver's time to answer (default: 15 s, docs/api.md#webhooks). */
  attemptTimeoutMs?: number;
}

export interface WebhookWorker {
  /** Stops taking deliveries and waits for those in flight, then closes its connection. */
  close(): Promise<void>;
}

/** Webhook deliveries over this worker's own Redis connection: the processor and its sweep. */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { logger } = options;
  const connection = createWorkerConnection(options.redis);
  connection.on('error', (err) => logger.warn({ err: err.message }, 'webhook worker redis error'));
  const jobs = createWebhookJobProducer(connection, options.redisPrefix, logger);
  const processor = startWebhookProcessor({
    connection,
    redisPrefix: options.redisPrefix,
    logger,
    concurrency: options.concurrency,
    lockDurationMs: options.lockDurationMs,
    jobs,
    sweepIntervalMs: options.sweepIntervalMs,
    deps: {
      store: new DeliveryStore(options.db.pool),
      keyring: options.keyring,
      fetch: guardedFetch(parseAllowList(options.outboundAllowList), 'webhooks'),
      schedule: options.retrySchedule,
      jobs,
      logger,
      timeoutMs: options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
    },
  });
  return {
    async close() {
      await processor.close();
      await jobs.close();
      connection.disconnect();
    },
  };
}
