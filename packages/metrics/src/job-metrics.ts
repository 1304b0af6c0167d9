import { Histogram } from 'prom-client';
import type { MetricsRegistry } from './registry';
import { METRIC } from './names';

export interface NodeJobEvent {
  queue: string;
  nodeType: string;
  /** From enqueue to the start of processing; undefined for retries, whose wait includes the backoff. */
  waitMs: number | undefined;
  processingMs: number;
}

/** Node job timings of a worker process: structurally the `NodeJobHooks` of @weft/engine. */
export interface JobMetrics {
  nodeJobProcessed(event: NodeJobEvent): void;
}

// Wait: milliseconds when workers keep up, minutes when the backlog grows.
// Processing: bookkeeping nodes take milliseconds, media and provider calls minutes.
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export function createJobMetrics({ registry }: MetricsRegistry): JobMetrics {
  const labelNames = ['queue', 'node_type'] as const;
  const wait = new Histogram({
    name: METRIC.jobWait,
    help: 'Time a node job waited in its queue before a worker took it (first attempts only), by queue and node type',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  const processing = new Histogram({
    name: METRIC.jobProcessing,
    help: 'Time a worker spent processing a node job, by queue and node type',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    nodeJobProcessed({ queue, nodeType, waitMs, processingMs }) {
      const labels = { queue, node_type: nodeType };
      if (waitMs !== undefined) wait.observe(labels, Math.max(0, waitMs) / 1000);
      processing.observe(labels, processingMs / 1000);
    },
  };
}
