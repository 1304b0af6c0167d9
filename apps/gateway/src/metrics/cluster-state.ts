import { countRuns, readSlotBacklog } from '@weft/engine';
import { QUEUE_JOB_STATES, type ClusterState, type QueueJobState } from '@weft/metrics';
import { liveWorkers } from '@weft/queue';
import type { Queue } from 'bullmq';
import type { RedisClient } from '@weft/queue';
import type { Pool } from 'pg';

export interface ClusterStateSources {
  pool: Pool;
  redis: RedisClient;
  redisPrefix: string;
  /** REDIS_QUEUE_SHARDS: the light lane's shards on a cluster. */
  queueShards: number;
  /** The observed queues: the light lane's once per shard, counted together under its name. */
  queues: Queue[];
  stalledAfterMs: number;
}

/**
 * Reads the cluster-wide gauges: one indexed count over the runs in progress
 * (runs(status, updated_at)), BullMQ's job counts per queue, the worker
 * heartbeats, and the organizations' slot backlog. Called at most once per cache interval per gateway.
 */
export function clusterStateLoader(sources: ClusterStateSources): () => Promise<ClusterState> {
  return async () => {
    const [runs, counts, workers, backlog] = await Promise.all([
      countRuns(sources.pool, sources.stalledAfterMs),
      Promise.all(sources.queues.map((queue) => queue.getJobCounts(...QUEUE_JOB_STATES))),
      liveWorkers(sources.redis, sources.redisPrefix),
      readSlotBacklog(sources.redis, sources.redisPrefix, sources.queueShards),
    ]);
    const row = runs;
    const queues: ClusterState['queues'] = {};
    sources.queues.forEach((queue, i) => {
      const byState = queues[queue.name] ?? ({} as Record<QueueJobState, number>);
      for (const state of QUEUE_JOB_STATES) byState[state] = (byState[state] ?? 0) + (counts[i]?.[state] ?? 0);
      queues[queue.name] = byState;
    });
    return {
      queues,
      runsInProgress: row.in_progress,
      runsAwaitingReview: row.awaiting_review,
      runsStalled: row.stalled,
      workers: workers.length,
      nodesWaitingForSlot: backlog.nodes,
      organizationsWaitingForSlot: backlog.organizations,
    };
  };
}
