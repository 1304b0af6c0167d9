import type { Engine, EngineHooks, RunQueues } from '@weft/engine';
import {
  closeWorker,
  countProcessorCalls,
  ExecuteNodeJob,
  STALLED_CHECK_MS,
  WORKER_RUN_RETRY_DELAY_MS,
} from '@weft/queue';
import { traceNodeJob, withLogContext } from '@weft/telemetry';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import { instantNodeScope } from './instant-nodes';
import { timeNodeJobs } from './job-timing';
import { startSlotRenewal } from './slot-renewal';

export interface NodeProcessorsOptions {
  engine: Engine;
  /** The worker's BullMQ connection (the composition root's). */
  connection: RedisClient;
  queues: RunQueues;
  logger: Logger;
  lightConcurrency: number;
  heavyConcurrency: number;
  /** A job not renewed for this long is taken over by another worker (its worker died). */
  lockDurationMs: number;
  /**
   * The process's heartbeat id, which its BullMQ workers carry as their name
   * (kept on each job they take): the other workers hand the jobs back once
   * that heartbeat lapses (@weft/queue dead-worker-jobs.ts). Unnamed, a dead
   * worker's jobs wait for their lock to expire.
   */
  workerName?: string | undefined;
  hooks?: EngineHooks | undefined;
}

export interface NodeProcessors {
  /** Stops taking jobs and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * The node queues' processors: one BullMQ worker per lane (light and heavy,
 * each with its own concurrency; the light lane's once per shard), each job executed by the engine inside its
 * log context and span, and the slot renewal of the jobs executing here.
 */
export function startNodeProcessors(options: NodeProcessorsOptions): NodeProcessors {
  const { engine, logger } = options;
  const instantScope = instantNodeScope({ hooks: options.hooks, logger });
  const executing = new Set<ExecuteNodeJob>();
  const renewal = startSlotRenewal(options.queues.slots, executing, logger);
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
    connection: options.connection,
    ...(options.workerName ? { name: options.workerName } : {}),
    lockDuration: options.lockDurationMs,
    // Only jobs whose lock is gone are stalled, so checking often costs a script per interval and
    // hands back a dead worker's jobs (their lock deleted) within it.
    stalledInterval: Math.min(options.lockDurationMs, STALLED_CHECK_MS),
    maxStalledCount: 2,
    runRetryDelay: WORKER_RUN_RETRY_DELAY_MS,
  };
  // One BullMQ worker per shard of the light lane (one on a single Redis), each with the light concurrency:
  // its jobs wait on sockets, and an organization's share caps what one shard holds of them.
  const lanes = [
    ...options.queues.lightShards.map((queue) => ({
      queue,
      counted: countProcessorCalls(timed),
      concurrency: options.lightConcurrency,
    })),
    { queue: options.queues.heavy, counted: countProcessorCalls(timed), concurrency: options.heavyConcurrency },
  ];
  const workers = lanes.map(
    ({ queue, counted, concurrency }) =>
      new Worker(queue.name, counted.processor, { ...common, prefix: queue.opts.prefix, concurrency }),
  );
  for (const worker of workers) {
    worker.on('error', (err) => logger.warn({ err: err.message }, 'queue worker error'));
    worker.on('failed', (job, err) => {
      // Outside the processor (and its log context): the ids come from the payload.
      const { runId, nodeId } = (job?.data ?? {}) as Partial<ExecuteNodeJob>;
      logger.warn({ runId, nodeId, jobId: job?.id, err: err.message }, 'node job attempt failed');
    });
  }
  return {
    async close() {
      await Promise.all(workers.map((worker, i) => closeWorker(worker, lanes[i]!.counted.inFlight)));
      renewal.stop();
    },
  };
}
