import { Queue } from 'bullmq';
import type { RedisClient } from './connections';
import type { Logger } from 'pino';
import { ASSET_JOBS, ASSET_QUEUE, PROCESS_ASSET_JOB_OPTIONS, processAssetJobId } from './asset-jobs';

export interface AssetJobProducer {
  /**
   * Asks a worker to process the asset (an upload in the gateway, a file a node produced in a worker). Never throws: the asset is usable
   * without processing, and an asset whose job was not added is found and
   * enqueued by the worker's sweeper.
   */
  enqueueProcessing(assetId: string): Promise<void>;
  close(): Promise<void>;
}

export function createAssetJobProducer(connection: RedisClient, prefix: string, logger: Logger): AssetJobProducer {
  const queue = new Queue(ASSET_QUEUE, { connection, prefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'asset queue error'));
  return {
    async enqueueProcessing(assetId) {
      try {
        await queue.add(
          ASSET_JOBS.process,
          { assetId },
          { ...PROCESS_ASSET_JOB_OPTIONS, jobId: processAssetJobId({ assetId }) },
        );
      } catch (err) {
        logger.warn({ err: (err as Error).message, assetId }, 'could not enqueue asset processing; the sweeper will');
      }
    },
    close: () => queue.close(),
  };
}
