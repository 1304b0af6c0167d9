import { AsyncLocalStorage } from 'node:async_hooks';
import { context, trace } from '@opentelemetry/api';
import { activeTracer } from './tracing-state';

/**
 * What a log line belongs to: the request being served, or the run and node
 * (or asset) being processed. Set at the edges (the gateway's request
 * middleware, the workers' job processors) and added to every line written
 * inside, by any logger built with `logContextOptions`, including the root
 * logger that shared code (engine, rate limiter) writes with.
 */
export interface LogContext {
  reqId?: string;
  runId?: string;
  nodeId?: string;
  assetId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` (and everything it starts, sync or async) with `fields` on its log lines. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run(fields, fn);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}

/**
 * The line's fields plus the context's, the line's winning: a new object when
 * there is a context, the line's own object untouched otherwise. pino's default
 * merge would write the line's fields into whatever the mixin returns, which
 * here is the shared context object, so the merge happens in the mixin and the
 * strategy only passes the result on. Cost per line: one lookup, and one small
 * object only inside a context.
 */
function mixin(line: object): object {
  const fields = storage.getStore();
  if (activeTracer()) {
    const span = trace.getSpan(context.active());
    if (span) {
      const { traceId, spanId } = span.spanContext();
      return { ...fields, trace_id: traceId, span_id: spanId, ...line };
    }
  }
  return fields ? { ...fields, ...line } : line;
}

function passMixed(_line: object, mixed: object): object {
  return mixed;
}

/** Spread into `pino({...})` wherever a root logger is created. */
export const logContextOptions = { mixin, mixinMergeStrategy: passMixed } as const;
