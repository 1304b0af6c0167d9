import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

// The job catalog of run execution: queue names, payloads and ids. Payloads
// carry ids only; PostgreSQL holds the state.

export const RUN_QUEUES = {
  /** Nodes that wait on I/O (provider calls, bookkeeping): high concurrency. */
  light: 'nodes-light',
  /** Media processing: low concurrency, so it never starves the light queue. */
  heavy: 'nodes-heavy',
} as const;

export const ExecuteNodeJob = z.object({
  runId: z.uuid(),
  nodeId: z.string().min(1),
  attempt: z.number().int().min(0),
  /**
   * The node's type, for observability only (span attributes, metric labels)
   * so the worker need not query for it before executing; PostgreSQL decides
   * what runs. Optional: jobs enqueued by an older version lack it.
   */
  nodeType: z.string().min(1).optional(),
  /**
   * The run's organization, whose slot the job holds (fair sharing, ADR
   * 0025): the worker gives it back when the job is done. Optional: jobs
   * enqueued by an older version lack it and hold none.
   */
  organizationId: z.uuid().optional(),
  /**
   * W3C trace context of the enqueue (the `traceparent` and `tracestate`
   * headers' values), present only when the producer traces: the worker's
   * span for this node continues the trace that dispatched it.
   */
  traceparent: z.string().max(256).optional(),
  tracestate: z.string().max(512).optional(),
});
export type ExecuteNodeJob = z.infer<typeof ExecuteNodeJob>;

/**
 * Deterministic per (run, node, attempt): enqueueing the same dispatch twice
 * (after a crash, by the reconciler) adds one job. BullMQ reserves ':' in ids,
 * so the node id is URI-encoded. Only the ids count: the trace context, node
 * type and organization never change the id, so a traced and an untraced
 * enqueue collide.
 */
export function executeNodeJobId({
  runId,
  nodeId,
  attempt,
}: Pick<ExecuteNodeJob, 'runId' | 'nodeId' | 'attempt'>): string {
  return `${runId}.${attempt}.${encodeURIComponent(nodeId).replace(/\./g, '%2E')}`;
}

/**
 * Infrastructure failures (database restart, lost Redis) throw out of the
 * processor and are retried with backoff; node failures never throw, they end
 * the run. Finished jobs are removed so a later dispatch of the same id (the
 * reconciler) is never swallowed by a leftover.
 */
export const EXECUTE_NODE_JOB_OPTIONS: JobsOptions = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 200 },
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
};

/** The Redis channel on which cancellations reach the worker running the node. */
export function cancelChannel(prefix: string): string {
  return `${prefix}:runs:cancel`;
}

/** The Redis channel on which the processes that change runs tell the gateways' event streams. */
export function runChangesChannel(prefix: string): string {
  return `${prefix}:runs:changes`;
}

/**
 * The Redis channel of one run's `delta` events (text nodes produce as it
 * comes), from the worker executing the node to the gateways following the run.
 */
export function runDeltasChannel(prefix: string, runId: string): string {
  return `${prefix}:runs:deltas:${runId}`;
}
