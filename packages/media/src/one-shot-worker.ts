import { Worker } from 'node:worker_threads';

// heic.ts and document.ts each run one job on a worker thread of its own:
// its heap capped (resourceLimits) and its CPU off the event loop. The worker
// is evaluated from source and requires its package by the path resolved by
// the caller: the same in the sources and in the esbuild bundle, where
// packages stay in node_modules.

/** A worker's own report of failure: the job threw, and said why. */
export class WorkerJobError extends Error {}

/**
 * Runs `source` (which posts one message: its result, or `{error}`) on a new
 * worker thread with `workerData`, and answers that message. The job's error
 * comes back as a WorkerJobError; the thread running out of heap as Node's
 * error with code ERR_WORKER_OUT_OF_MEMORY.
 */
export function runOnWorker<T>(
  source: string,
  workerData: object,
  maxOldGenerationSizeMb: number,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData, resourceLimits: { maxOldGenerationSizeMb } });
    worker.once('message', (message: T & { error?: string }) => {
      void worker.terminate();
      if (message.error !== undefined) reject(new WorkerJobError(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
    // After a message or an error this changes nothing: a promise settles once.
    worker.once('exit', (code) => reject(new Error(`${what} exited (${code})`)));
  });
}
