import { executeNodeJobId, type ExecuteNodeJob } from '@weft/queue';
import type { JobType, Queue } from 'bullmq';
import type { RunQueues } from '../index';

// The node jobs waiting in the queues, where no worker takes them: a test
// reads them and hands them to executeNode itself.

const QUEUED: JobType[] = ['waiting', 'prioritized', 'delayed'];

/** The ids of the jobs of `runId` waiting in `queue`, sorted. */
export async function queuedJobIds(queue: Queue<ExecuteNodeJob>, runId: string): Promise<string[]> {
  const jobs = await queue.getJobs(QUEUED);
  return jobs
    .filter((job) => job.data.runId === runId)
    .map((job) => job.id!)
    .sort();
}

/** The ids a run's dispatched nodes have in the queues, sorted: what queuedJobIds finds once they are enqueued. */
export function jobIds(runId: string, nodes: { nodeId: string; attempt?: number }[]): string[] {
  return nodes.map(({ nodeId, attempt = 0 }) => executeNodeJobId({ runId, nodeId, attempt })).sort();
}

/**
 * Takes the queued job of a node off its queue, as a worker picks it up, and
 * returns what a worker hands executeNode. Fails when there is none.
 */
export async function takeJob(queues: RunQueues, runId: string, nodeId: string, attempt = 0): Promise<ExecuteNodeJob> {
  const id = executeNodeJobId({ runId, nodeId, attempt });
  for (const queue of [queues.light, queues.heavy]) {
    const job = await queue.getJob(id);
    if (!job) continue;
    await job.remove();
    return job.data;
  }
  throw new Error(`No queued job ${id}`);
}
