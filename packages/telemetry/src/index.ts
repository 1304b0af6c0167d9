// @weft/telemetry: what ties a log line or a span to the request, run and
// node it belongs to. Logs: an async-local context read by a pino mixin.
// Traces: OpenTelemetry, off unless configured, and then loaded first.
export { currentLogContext, logContextOptions, withLogContext, type LogContext } from './log-context';
export { startTracing, type Tracing } from './start-tracing';
export { bootTracing, type Boot } from './boot';
export {
  tracingSettings,
  type OtelConfig,
  type OtlpProtocol,
  type TracesSampler,
  type TracingSettings,
} from './tracing-settings';
export {
  currentTraceCarrier,
  markNodeFailed,
  traceEnqueue,
  traceNodeJob,
  type NodeJobRef,
  type TraceCarrier,
} from './queue-hop';
export { setHttpRoute } from './http-route';
