import type { Job, Worker } from 'bullmq';

/** A BullMQ worker whose processor calls we count, so that shutdown knows when our own work is done. */
export interface CountedProcessor<T> {
  processor: (job: Job<T>) => Promise<unknown>;
  /** Processor calls in progress. */
  inFlight(): number;
}

export function countProcessorCalls<T>(processor: (job: Job<T>) => Promise<unknown>): CountedProcessor<T> {
  let running = 0;
  return {
    async processor(job) {
      running++;
      try {
        return await processor(job);
      } finally {
        running--;
      }
    },
    inFlight: () => running,
  };
}

/**
 * Closes a BullMQ worker gracefully: it stops taking jobs and waits for the
 * processor calls in flight. BullMQ's own `close()` then also waits for its
 * fetch of the next job, and after a Redis connection was cut while jobs were
 * executing that fetch can stay pending for ever (seen with BullMQ 6.7: the
 * worker reports one item outstanding and never closes). So once our
 * processors are done, close() gets `settleMs` more; then the worker's
 * connections are dropped and it is left behind (the process is exiting). A job whose completion was not recorded by then
 * is redelivered after its lock expires, which execution tolerates.
 */
export async function closeWorker(worker: Worker, inFlight: () => number, settleMs = 2_000): Promise<void> {
  let closed = false;
  const closing = worker.close().then(
    () => (closed = true),
    () => (closed = true),
  );
  while (!closed && inFlight() > 0) await new Promise((resolve) => setTimeout(resolve, 25));
  if (closed) return;
  await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, settleMs).unref())]);
  // Not awaited: with the fetch stuck, BullMQ's disconnect() can wait for it too.
  if (!closed) void worker.disconnect().catch(() => undefined);
}
