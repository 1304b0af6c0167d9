import type { EngineHooks } from '@weft/engine';
import { createJobMetrics, createMetricsRegistry, createRunMetrics, type MetricsRegistry } from '@weft/metrics';

/** What a worker process measures (served by its ops server): runs it ended, node job timings. */
export interface WorkerMetrics {
  registry: MetricsRegistry;
  /** Given to the node workers' engine. */
  hooks: EngineHooks;
}

export function createWorkerMetrics(): WorkerMetrics {
  const registry = createMetricsRegistry();
  const runs = createRunMetrics(registry);
  const jobs = createJobMetrics(registry);
  return {
    registry,
    hooks: {
      runStarted: (fact) => runs.runStarted(fact),
      runEnded: (fact) => runs.runEnded(fact),
      nodeJobProcessed: (fact) => jobs.nodeJobProcessed(fact),
    },
  };
}
