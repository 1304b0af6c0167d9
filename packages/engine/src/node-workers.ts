import type { Db } from '@weft/db';
import {
  closeWorker,
  countProcessorCalls,
  createAssetJobProducer,
  createWorkerConnection,
  ExecuteNodeJob,
  RUN_QUEUES,
  WORKER_RUN_RETRY_DELAY_MS,
} from '@weft/queue';
import type { NodeRoutes } from '@weft/nodes';
import type { Storage } from '@weft/storage';
import { traceNodeJob, withLogContext } from '@weft/telemetry';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { listenForCancellations } from './cancel-bus';
import { createRunQueues } from './dispatcher';
import { createEngine, type Engine } from './engine';
import type { MediaTools } from './engine-core';
import type { EngineHooks } from './engine-hooks';
import { instantNodeScope } from './instant-nodes';
import { timeNodeJobs } from './job-timing';
import { startSlotRenewal } from './slot-renewal';

export interface NodeWorkersOptions {
  db: Db;
  storage: Storage;
  redisUrl: string;
  redisPrefix: string;
  logger: Logger;
  lightConcurrency: number;
  heavyConcurrency: number;
  /** A job not renewed for this long is taken over by another worker (its worker died). */
  lockDurationMs: number;
  outboundAllowList: readonly string[];
  /** Largest image (width × height) a node decodes: ASSET_MAX_IMAGE_PIXELS, the limit uploads have. */
  maxImagePixels: number;
  /** Where node executions make their temporary directories (default: the system's temporary directory). */
  nodeWorkRoot?: string;
  reconcileIntervalMs: number;
  reconcileStaleMs: number;
  /** Nodes of one organization queued or executing at once, over every worker (ADR 0025). */
  orgMaxExecutingNodes: number;
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
 * Run execution inside a worker process: one BullMQ worker per node queue
 * (light and heavy, each with its own concurrency), the cancel subscription
 * that aborts in-flight nodes, and the reconciler loop.
 */
export async function startNodeWorkers(options: NodeWorkersOptions): Promise<NodeWorkers> {
  const { logger } = options;
  const connection = createWorkerConnection(options.redisUrl);
  const subscriber = createWorkerConnection(options.redisUrl);
  for (const c of [connection, subscriber]) c.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const queues = createRunQueues(connection, options.redisPrefix, {
    maxPerOrg: options.orgMaxExecutingNodes,
    ...(options.orgSlotLeaseMs ? { leaseMs: options.orgSlotLeaseMs } : {}),
  });
  const assetJobs = createAssetJobProducer(connection, options.redisPrefix, logger);
  const engine = createEngine({
    db: options.db,
    queues,
    publisher: connection,
    redisPrefix: options.redisPrefix,
    logger,
    storage: options.storage,
    outboundAllowList: options.outboundAllowList,
    imageLimits: { maxPixels: options.maxImagePixels },
    ...(options.mediaTools ? { mediaTools: options.mediaTools } : {}),
    ...(options.nodeRoutes ? { nodeRoutes: options.nodeRoutes } : {}),
    ...(options.nodeWorkRoot ? { nodeWorkRoot: options.nodeWorkRoot } : {}),
    assetJobs,
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  await listenForCancellations(subscriber, options.redisPrefix, engine.inFlight);

  const instantScope = instantNodeScope({ hooks: options.hooks, logger });
  const executing = new Set<ExecuteNodeJob>();
  const renewal = startSlotRenewal(queues.slots, executing, logger);
  // Node failures never throw (they end the run); what throws is infrastructure
  // (database, storage, Redis), which BullMQ retries with backoff.
  const processor = async (job: Job<unknown>) => {
    const parsed = ExecuteNodeJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('malformed execute-node payload');
    const data = parsed.data;
    executing.add(data);
    let done = false;
    try {
      // Every line logged while the node executes, by any code, names its run and
      // node; when tracing, the execution is a span continuing the dispatcher's trace.
      await withLogContext({ runId: data.runId, nodeId: data.nodeId }, () =>
        traceNodeJob(job.queueName, job.id ?? '', data, job.attemptsMade, () =>
          engine.executeNode(data, { instantScope }),
        ),
      );
      done = true;
    } catch (err) {
      // A retry keeps the slot (its lease lapses if the retry is far off); the last attempt gives it back.
      done = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      throw err;
    } finally {
      executing.delete(data);
      if (done) await engine.finishedJob(data);
    }
  };
  const timed = timeNodeJobs(processor, options.hooks, logger);
  const common = {
    connection,
    prefix: options.redisPrefix,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.lockDurationMs,
    maxStalledCount: 2,
    runRetryDelay: WORKER_RUN_RETRY_DELAY_MS,
  };
  const light = countProcessorCalls(timed);
  const heavy = countProcessorCalls(timed);
  const workers = [
    new Worker(RUN_QUEUES.light, light.processor, { ...common, concurrency: options.lightConcurrency }),
    new Worker(RUN_QUEUES.heavy, heavy.processor, { ...common, concurrency: options.heavyConcurrency }),
  ];
  for (const worker of workers) {
    worker.on('error', (err) => logger.warn({ err: err.message }, 'queue worker error'));
    worker.on('failed', (job, err) => {
      // Outside the processor (and its log context): the ids come from the payload.
      const { runId, nodeId } = (job?.data ?? {}) as Partial<ExecuteNodeJob>;
      logger.warn({ runId, nodeId, jobId: job?.id, err: err.message }, 'node job attempt failed');
    });
  }
  const reconciler = startReconcileLoop(engine, options.reconcileIntervalMs, options.reconcileStaleMs, logger);

  return {
    engine,
    async close() {
      await reconciler.stop();
      await Promise.all([closeWorker(workers[0]!, light.inFlight), closeWorker(workers[1]!, heavy.inFlight)]);
      renewal.stop();
      await queues.close();
      await assetJobs.close();
      subscriber.disconnect();
      connection.disconnect();
    },
  };
}

/**
 * The reconciler on a plain timer rather than a BullMQ repeatable job: it must
 * keep working after Redis lost its data (which would take a repeatable job's
 * schedule with it), and running it in every worker at once is harmless
 * (enqueues are idempotent).
 */
function startReconcileLoop(engine: Engine, intervalMs: number, staleMs: number, logger: Logger) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = engine.reconcile(staleMs).catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'reconcile pass failed; retrying at the next tick');
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
