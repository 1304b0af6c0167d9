import { Queue } from 'bullmq';
import type { RedisClient } from './connections';
import { ASSET_QUEUE } from './asset-jobs';
import { shardPrefixes } from './queue-shards';
import { RUN_QUEUES } from './run-jobs';
import { WEBHOOK_QUEUE } from './webhook-jobs';

/** The queues that hold work (node jobs, asset processing, webhook deliveries): what dashboards and queue metrics show. */
export const OBSERVED_QUEUES = [RUN_QUEUES.light, RUN_QUEUES.heavy, ASSET_QUEUE, WEBHOOK_QUEUE] as const;

/**
 * Handles on every observed queue over one existing connection, for reading
 * counts and inspecting jobs (they add nothing): the light lane's once per
 * shard (`shards`, on a cluster), shard 0 first, so that several share a name.
 * BullMQ leaves a connection it was given open on close(), so the caller keeps owning it.
 */
export function openObservedQueues(
  connection: RedisClient,
  prefix: string,
  shards = 1,
): { queues: Queue[]; close(): Promise<void> } {
  const queues = OBSERVED_QUEUES.flatMap((name) =>
    (name === RUN_QUEUES.light ? shardPrefixes(prefix, shards) : [prefix]).map(
      (queuePrefix) => new Queue(name, { connection, prefix: queuePrefix }),
    ),
  );
  // Errors surface where the queues are read (a failed count, a failed page); nothing to do per event.
  for (const queue of queues) queue.on('error', () => undefined);
  return {
    queues,
    async close() {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
