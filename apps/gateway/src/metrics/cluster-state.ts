import { QUEUE_JOB_STATES, type ClusterState, type QueueJobState } from '@weft/metrics';
import { liveWorkers } from '@weft/queue';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';

export interface ClusterStateSources {
  pool: Pool;
  redis: Redis;
  redisPrefix: string;
  queues: Queue[];
  stalledAfterMs: number;
}

interface RunCounts {
  in_progress: number;
  awaiting_review: number;
  stalled: number;
}

/**
 * Reads the cluster-wide gauges: one indexed count over the runs in progress
 * (runs(status, updated_at)), BullMQ's job counts per queue, and the worker
 * heartbeats. Called at most once per cache interval per gateway.
 */
export function clusterStateLoader(sources: ClusterStateSources): () => Promise<ClusterState> {
  return async () => {
    const [runs, counts, workers] = await Promise.all([
      sources.pool.query<RunCounts>({
        name: 'metrics_run_counts_v1',
        text: `SELECT count(*)::int AS in_progress,
                      count(*) FILTER (WHERE awaiting_human_review)::int AS awaiting_review,
                      count(*) FILTER (WHERE NOT awaiting_human_review
                                         AND updated_at < now() - make_interval(secs => $1::float8 / 1000))::int AS stalled
                 FROM runs WHERE status = 'in_progress'`,
        values: [sources.stalledAfterMs],
      }),
      Promise.all(sources.queues.map((queue) => queue.getJobCounts(...QUEUE_JOB_STATES))),
      liveWorkers(sources.redis, sources.redisPrefix),
    ]);
    const row = runs.rows[0] ?? { in_progress: 0, awaiting_review: 0, stalled: 0 };
    const queues: ClusterState['queues'] = {};
    sources.queues.forEach((queue, i) => {
      const byState = {} as Record<QueueJobState, number>;
      for (const state of QUEUE_JOB_STATES) byState[state] = counts[i]?.[state] ?? 0;
      queues[queue.name] = byState;
    });
    return {
      queues,
      runsInProgress: row.in_progress,
      runsAwaitingReview: row.awaiting_review,
      runsStalled: row.stalled,
      workers: workers.length,
    };
  };
}
