// @weft/metrics: every Prometheus metric Weft exposes, defined once so that the
// gateway, the workers and the engine share names and labels (see names.ts).
export { createMetricsRegistry, type MetricsRegistry } from './registry';
export { METRIC, QUEUE_JOB_STATES, type QueueJobState } from './names';
export { createHttpMetrics, methodLabel, UNMATCHED_ROUTE, type HttpMetrics } from './http-metrics';
export {
  createRunMetrics,
  type RunMetrics,
  type RunKind,
  type RunStartedEvent,
  type RunEndedEvent,
} from './run-metrics';
export { createJobMetrics, type JobMetrics, type NodeJobEvent } from './job-metrics';
export { registerAdmissionGauges, type AdmissionSources } from './admission-gauges';
export { registerClusterGauges, type ClusterState, type ClusterGaugeOptions } from './cluster-gauges';
export { bearerMatches } from './metrics-token';
export { parseExposition, type Exposition, type Sample } from './exposition';
