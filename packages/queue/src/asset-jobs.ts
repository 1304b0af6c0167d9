import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

// The job catalog of asset processing (thumbnail, metadata, blur hash).
// Payloads carry the asset id only; PostgreSQL holds the state.

export const ASSET_QUEUE = 'assets';

export const ASSET_JOBS = {
  process: 'process-asset',
  /** Repeatable: enqueues assets whose processing job was never added (gateway lost Redis after the commit). */
  sweep: 'sweep-assets',
} as const;

export const ProcessAssetJob = z.object({ assetId: z.uuid() });
export type ProcessAssetJob = z.infer<typeof ProcessAssetJob>;

/** One job per asset: a repeated enqueue (upload, then the sweeper) adds it once. */
export function processAssetJobId({ assetId }: ProcessAssetJob): string {
  return `process.${assetId}`;
}

/**
 * Storage or database hiccups are retried with backoff; content that cannot
 * be processed fails at once (the processor throws BullMQ's
 * UnrecoverableError). Finished jobs are removed so that the sweeper can add
 * the same id again for an asset still pending.
 */
export const PROCESS_ASSET_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: true,
};
