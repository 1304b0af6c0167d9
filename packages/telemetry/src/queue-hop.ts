import {
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { activeTracer } from './tracing-state';

// The queue hop of a run: the producer span's context travels inside the
// job's payload (W3C `traceparent`/`tracestate`), so the worker's span for
// the node continues the trace of the request or node that dispatched it.
// Always W3C here, whatever OTEL_PROPAGATORS says for HTTP: the payload
// schema names these two fields.

const w3c = new W3CTraceContextPropagator();
/** The node-execution span, so a failure recorded deeper marks that span rather than a nested one. */
const NODE_SPAN = createContextKey('weft.node-span');

export interface NodeJobRef {
  runId: string;
  nodeId: string;
  attempt: number;
  nodeType?: string | undefined;
}

/** The trace context carried by a job payload. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

const NO_CARRIER: TraceCarrier = Object.freeze({});

function nodeAttributes(queue: string, jobId: string, job: NodeJobRef, operation: 'send' | 'process'): Attributes {
  return {
    'messaging.system': 'bullmq',
    'messaging.operation.type': operation,
    'messaging.destination.name': queue,
    'messaging.message.id': jobId,
    'weft.run.id': job.runId,
    'weft.node.id': job.nodeId,
    'weft.node.attempt': job.attempt,
    ...(job.nodeType ? { 'weft.node.type': job.nodeType } : {}),
  };
}

function recordError(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/**
 * Enqueues one node job inside a producer span (`send <queue>`, a child of
 * the active span); `enqueue` gets the trace context to put into the payload,
 * empty when this process does not trace.
 */
export async function traceEnqueue<T>(
  queue: string,
  jobId: string,
  job: NodeJobRef,
  enqueue: (carrier: TraceCarrier) => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return enqueue(NO_CARRIER);
  const span = tracer.startSpan(`send ${queue}`, {
    kind: SpanKind.PRODUCER,
    attributes: nodeAttributes(queue, jobId, job, 'send'),
  });
  const carrier: TraceCarrier = {};
  w3c.inject(trace.setSpan(context.active(), span), carrier, defaultTextMapSetter);
  try {
    return await enqueue(carrier);
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs one node job inside a consumer span (`execute-node <type>`) whose
 * parent is the producer span named by the payload (a new trace when the
 * payload has none: enqueued untraced, or by the reconciler after Redis lost
 * the job). A throw (infrastructure, retried by BullMQ) marks it failed;
 * a node failure is marked by `markNodeFailed`.
 */
export async function traceNodeJob<T>(
  queue: string,
  jobId: string,
  job: NodeJobRef & TraceCarrier,
  attemptsMade: number,
  run: () => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return run();
  const parent = job.traceparent ? w3c.extract(ROOT_CONTEXT, job, defaultTextMapGetter) : ROOT_CONTEXT;
  const attributes = nodeAttributes(queue, jobId, job, 'process');
  // BullMQ's delivery count: above 0 the job is being retried after an infrastructure error.
  attributes['weft.job.attempts_made'] = attemptsMade;
  const span = tracer.startSpan(
    `execute-node ${job.nodeType ?? job.nodeId}`,
    { kind: SpanKind.CONSUMER, attributes },
    parent,
  );
  const active = trace.setSpan(parent, span).setValue(NODE_SPAN, span);
  try {
    return await context.with(active, run);
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** The active span's context as a payload carrier: for work continued in this process as if it had been enqueued. */
export function currentTraceCarrier(): TraceCarrier {
  if (!activeTracer()) return NO_CARRIER;
  const carrier: TraceCarrier = {};
  w3c.inject(context.active(), carrier, defaultTextMapSetter);
  return carrier;
}

/** Marks the node execution in progress as failed, with the failure's reason and safe message. */
export function markNodeFailed(reason: string, message: string): void {
  if (!activeTracer()) return;
  const span = context.active().getValue(NODE_SPAN) as Span | undefined;
  if (!span) return;
  span.setAttribute('weft.failure.reason', reason);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
