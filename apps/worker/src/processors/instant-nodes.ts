import { currentTraceCarrier, traceNodeJob, withLogContext } from '@weft/telemetry';
import type { Logger } from 'pino';
import { notify, type EngineHooks } from '@weft/engine';
import type { InstantScope } from '@weft/engine';

/** The label instant nodes carry where queued ones name their queue (spans, metrics). */
export const INSTANT_LANE = 'instant';

export interface InstantNodeOptions {
  hooks?: EngineHooks | undefined;
  logger: Logger;
}

/**
 * How a worker wraps each instant node it executes after a queued one
 * (instant-chain.ts): its own log context, a span that is a child of the
 * execution that made it ready (as if it had been enqueued from there), and
 * its processing time in the node job metrics under the `instant` lane.
 */
export function instantNodeScope(options: InstantNodeOptions): InstantScope {
  const facts = { hooks: options.hooks ?? {}, logger: options.logger };
  return (job, execute) => {
    const traced = { ...job, ...currentTraceCarrier() };
    return withLogContext({ runId: job.runId, nodeId: job.nodeId }, () =>
      traceNodeJob(INSTANT_LANE, '', traced, 0, async () => {
        const started = performance.now();
        try {
          return await execute();
        } finally {
          notify(facts, 'nodeJobProcessed', {
            queue: INSTANT_LANE,
            nodeType: job.nodeType ?? 'unknown',
            waitMs: 0,
            processingMs: performance.now() - started,
          });
        }
      }),
    );
  };
}
