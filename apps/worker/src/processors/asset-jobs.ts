import { findUnprocessedAssets, processAsset, type AssetProcessingDeps } from '@weft/assets';
import { redactUrls, UnprocessableMediaError } from '@weft/media';
import {
  ASSET_JOBS,
  ASSET_QUEUE,
  closeWorker,
  countProcessorCalls,
  PROCESS_ASSET_JOB_OPTIONS,
  ProcessAssetJob,
  processAssetJobId,
  WORKER_RUN_RETRY_DELAY_MS,
} from '@weft/queue';
import { withLogContext } from '@weft/telemetry';
import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';

export interface AssetProcessorOptions {
  /** The worker's BullMQ connection, and the `assets` queue over it (the composition root's). */
  connection: RedisClient;
  queue: Queue;
  redisPrefix: string;
  logger: Logger;
  concurrency: number;
  deps: AssetProcessingDeps;
  /** How often the sweeper runs, and how old a still-pending asset must be for it to act. */
  sweepIntervalMs: number;
  sweepStaleMs: number;
}

/** The processor of the `assets` queue: processing jobs plus the repeatable sweep. */
export async function startAssetProcessor(options: AssetProcessorOptions): Promise<{ close(): Promise<void> }> {
  const { deps, logger, queue } = options;

  async function sweep(): Promise<number> {
    const ids = await findUnprocessedAssets(deps.db, options.sweepStaleMs);
    if (ids.length === 0) return 0;
    await queue.addBulk(
      ids.map((assetId) => ({
        name: ASSET_JOBS.process,
        data: { assetId },
        opts: { ...PROCESS_ASSET_JOB_OPTIONS, jobId: processAssetJobId({ assetId }) },
      })),
    );
    logger.info({ count: ids.length }, 'asset sweeper enqueued pending assets');
    return ids.length;
  }

  async function handle(job: Job): Promise<unknown> {
    if (job.name === ASSET_JOBS.sweep) return sweep();
    const { assetId } = ProcessAssetJob.parse(job.data);
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      // Every line logged while processing, by any code, names the asset.
      await withLogContext({ assetId }, () => processAsset(deps, assetId, { final }));
    } catch (err) {
      // ffmpeg's errors name its presigned input URL; its signature must not reach the logs.
      const message = redactUrls(err instanceof Error ? err.message : String(err));
      logger.warn({ err: message, assetId, attempt: job.attemptsMade + 1 }, 'asset processing failed');
      // Content that cannot be processed fails the same way every time: no retries.
      if (err instanceof UnprocessableMediaError) throw new UnrecoverableError(message);
      throw err;
    }
    return undefined;
  }

  const counted = countProcessorCalls(handle);
  const worker = new Worker(ASSET_QUEUE, counted.processor, {
    connection: options.connection,
    prefix: options.redisPrefix,
    concurrency: options.concurrency,
    runRetryDelay: WORKER_RUN_RETRY_DELAY_MS,
  });
  worker.on('error', (err) => logger.warn({ err: err.message }, 'asset worker error'));
  await queue.upsertJobScheduler(
    ASSET_JOBS.sweep,
    { every: options.sweepIntervalMs },
    { name: ASSET_JOBS.sweep, opts: { removeOnComplete: true, removeOnFail: true } },
  );
  return { close: () => closeWorker(worker, counted.inFlight) };
}
