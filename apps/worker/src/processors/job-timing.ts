import { NODE_TYPES } from '@weft/contracts';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { notify, type EngineHooks } from '@weft/engine';

const KNOWN_NODE_TYPES = new Set<string>(NODE_TYPES);

/** The node type the producer put in the payload; anything else is one bounded label value. */
function nodeTypeOf(data: unknown): string {
  const type = (data as { nodeType?: unknown } | null)?.nodeType;
  return typeof type === 'string' && KNOWN_NODE_TYPES.has(type) ? type : 'unknown';
}

/**
 * Wraps a node-job processor to report how long each job waited in its queue
 * and how long it took, whatever its outcome. The wait is reported for first
 * attempts only: a retry's includes its backoff delay, which is not backlog.
 */
export function timeNodeJobs(
  processor: (job: Job<unknown>) => Promise<void>,
  hooks: EngineHooks | undefined,
  logger: Logger,
): (job: Job<unknown>) => Promise<void> {
  if (!hooks?.nodeJobProcessed) return processor;
  const observers = { hooks, logger };
  return async (job) => {
    const takenAt = Date.now();
    const started = performance.now();
    try {
      await processor(job);
    } finally {
      notify(observers, 'nodeJobProcessed', {
        queue: job.queueName,
        nodeType: nodeTypeOf(job.data),
        waitMs: job.attemptsMade === 0 ? (job.processedOn ?? takenAt) - job.timestamp : undefined,
        processingMs: performance.now() - started,
      });
    }
  };
}
