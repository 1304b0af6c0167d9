import type { ExecuteNodeJob } from '@weft/queue';
import { currentTraceCarrier, traceNodeJob, withLogContext } from '@weft/telemetry';
import type { Logger } from 'pino';
import type { Engine } from './engine';
import type { RunSnapshot } from './execute-node';
import { notify, type EngineHooks } from './engine-hooks';

/** The label instant nodes carry where queued ones name their queue (spans, metrics). */
export const INSTANT_LANE = 'instant';

export interface InstantNodeOptions {
  hooks?: EngineHooks | undefined;
  logger: Logger;
}

/**
 * Executes a node, then, depth first, the instant nodes each completion made
 * ready, in this process and without a queue hop: a chain of text nodes costs
 * one job instead of one per node, while every node still has its own commit.
 * Each instant node gets its own log context and a span that is a child of
 * the execution that made it ready. When one cannot be executed here
 * (database or Redis trouble), it and the rest are handed to the queue, where
 * BullMQ retries with backoff; if even that fails, the reconciler enqueues
 * them, as for any dispatched node without a job.
 */
export async function executeWithInstantNodes(
  engine: Engine,
  job: ExecuteNodeJob,
  options: InstantNodeOptions,
  known?: RunSnapshot,
): Promise<RunSnapshot | null> {
  const executed = await engine.executeNode(job, known);
  const ready = executed.instant;
  // The latest state this process committed: each instant node starts from it, and a sibling from what the previous one left.
  let latest = executed.snapshot;
  for (let i = 0; i < ready.length; i++) {
    const node = ready[i]!;
    const next: ExecuteNodeJob = {
      runId: job.runId,
      nodeId: node.nodeId,
      attempt: node.attempt,
      nodeType: node.nodeType,
      ...currentTraceCarrier(),
    };
    try {
      const from = latest ?? undefined;
      latest = await withLogContext({ runId: next.runId, nodeId: next.nodeId }, () =>
        traceNodeJob(INSTANT_LANE, '', next, 0, () => executeInstant(engine, next, options, from)),
      );
    } catch (err) {
      options.logger.warn(
        { runId: job.runId, nodeId: node.nodeId, err: (err as Error).message },
        'instant node not executed here; enqueued',
      );
      await engine.enqueue(job.runId, ready.slice(i));
      return null;
    }
  }
  return latest;
}

async function executeInstant(
  engine: Engine,
  job: ExecuteNodeJob,
  options: InstantNodeOptions,
  known: RunSnapshot | undefined,
): Promise<RunSnapshot | null> {
  const started = performance.now();
  try {
    return await executeWithInstantNodes(engine, job, options, known);
  } finally {
    notify({ hooks: options.hooks ?? {}, logger: options.logger }, 'nodeJobProcessed', {
      queue: INSTANT_LANE,
      nodeType: job.nodeType ?? 'unknown',
      waitMs: 0,
      processingMs: performance.now() - started,
    });
  }
}
