import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from './registry';
import { METRIC, QUEUE_JOB_STATES, type QueueJobState } from './names';

/** The state of the whole deployment, the same whichever gateway is asked. */
export interface ClusterState {
  /** Queue name → job count per state. */
  queues: Record<string, Record<QueueJobState, number>>;
  runsInProgress: number;
  runsAwaitingReview: number;
  runsStalled: number;
  workers: number;
  /** Node jobs waiting for their organization's slot (ADR 0025): not in any queue's counts. */
  nodesWaitingForSlot: number;
  /** Organizations with such a backlog. */
  organizationsWaitingForSlot: number;
}

export interface ClusterGaugeOptions {
  load(): Promise<ClusterState>;
  /** A scrape within this long of the last load is answered from it. */
  cacheMs: number;
  onError(err: unknown): void;
}

/**
 * Gauges computed at scrape time from PostgreSQL and Redis. Every gateway
 * replica exposes the same values (dashboards aggregate them with max()), so
 * one load is shared by every gauge of a scrape and reused for `cacheMs`:
 * frequent scrapes by several Prometheus servers cost one load per interval
 * per replica. A failed load leaves the gauges empty (Prometheus then sees the
 * series vanish rather than stale numbers) and counts an error.
 */
export function registerClusterGauges({ registry }: MetricsRegistry, options: ClusterGaugeOptions): void {
  let cached: { at: number; state: Promise<ClusterState | undefined> } | undefined;
  const errors = new Counter({
    name: METRIC.clusterStateErrors,
    help: 'Scrapes whose cluster-wide gauges could not be computed (PostgreSQL or Redis unreachable)',
    registers: [registry],
  });
  const current = (): Promise<ClusterState | undefined> => {
    const now = Date.now();
    if (!cached || now - cached.at >= options.cacheMs) {
      cached = {
        at: now,
        state: options.load().catch((err: unknown) => {
          errors.inc();
          options.onError(err);
          return undefined;
        }),
      };
    }
    return cached.state;
  };

  new Gauge({
    name: METRIC.queueJobs,
    help: 'Jobs in each queue, by queue and state (waiting, active, delayed, failed, completed, prioritized)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      const state = await current();
      this.reset();
      if (!state) return;
      for (const [queue, counts] of Object.entries(state.queues)) {
        for (const s of QUEUE_JOB_STATES) this.set({ queue, state: s }, counts[s]);
      }
    },
  });
  const scalar = (name: string, help: string, pick: (state: ClusterState) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const state = await current();
        this.reset();
        if (state) this.set(pick(state));
      },
    });
  scalar(METRIC.runsInProgress, 'Runs in progress (including those awaiting review)', (s) => s.runsInProgress);
  scalar(METRIC.runsAwaitingReview, 'Runs in progress waiting for a human review', (s) => s.runsAwaitingReview);
  scalar(
    METRIC.runsStalled,
    'Runs in progress, not awaiting review, that have not moved for longer than the stalled threshold',
    (s) => s.runsStalled,
  );
  scalar(METRIC.workers, 'Worker processes with a live heartbeat', (s) => s.workers);
  scalar(
    METRIC.nodesWaitingForSlot,
    "Node jobs waiting for a slot of their organization's share of their lane (ORG_MAX_EXECUTING_NODES, ORG_MAX_MEDIA_NODES); not in weft_queue_jobs",
    (s) => s.nodesWaitingForSlot,
  );
  scalar(
    METRIC.organizationsWaitingForSlot,
    'Organizations with node jobs waiting for a slot of their cap',
    (s) => s.organizationsWaitingForSlot,
  );
}
