import type { Tracer } from '@opentelemetry/api';

// Whether this process traces. Set once, by startTracing, before the rest of
// the process loads; every helper asks here first so that with tracing off
// the hot path pays one comparison and nothing else.

let tracer: Tracer | undefined;

export function activeTracer(): Tracer | undefined {
  return tracer;
}

export function setActiveTracer(value: Tracer | undefined): void {
  tracer = value;
}
