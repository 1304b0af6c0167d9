import { nodeKind } from '@weft/nodes';
import { EXECUTE_NODE_JOB_OPTIONS, executeNodeJobId, RUN_QUEUES, type ExecuteNodeJob } from '@weft/queue';
import { traceEnqueue } from '@weft/telemetry';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Dispatch } from './transition';

export interface RunQueues {
  light: Queue<ExecuteNodeJob>;
  heavy: Queue<ExecuteNodeJob>;
  close(): Promise<void>;
}

/** The two node queues over one connection (a producer's in the gateway, a worker's in workers). */
export function createRunQueues(connection: Redis, prefix: string): RunQueues {
  const light = new Queue<ExecuteNodeJob>(RUN_QUEUES.light, { connection, prefix });
  const heavy = new Queue<ExecuteNodeJob>(RUN_QUEUES.heavy, { connection, prefix });
  for (const queue of [light, heavy]) queue.on('error', () => undefined);
  return {
    light,
    heavy,
    async close() {
      await Promise.all([light.close(), heavy.close()]);
    },
  };
}

/**
 * Enqueues dispatched nodes after their transaction committed. Job ids are
 * deterministic, so a repeat (a retried request, the reconciler) adds nothing.
 * A failure here loses nothing either: the nodes are `running` in PostgreSQL
 * and the reconciler enqueues them again when their run stops moving.
 */
export class Dispatcher {
  constructor(
    private readonly queues: RunQueues,
    private readonly logger: Logger,
  ) {}

  queueFor(nodeType: string): Queue<ExecuteNodeJob> {
    return nodeKind(nodeType) === 'heavy' ? this.queues.heavy : this.queues.light;
  }

  async dispatch(runId: string, nodes: Dispatch[]): Promise<boolean> {
    if (nodes.length === 0) return true;
    try {
      await Promise.all(
        nodes.map((node) => {
          const data: ExecuteNodeJob = { runId, nodeId: node.nodeId, attempt: node.attempt, nodeType: node.nodeType };
          const queue = this.queueFor(node.nodeType);
          const jobId = executeNodeJobId(data);
          // A producer span when tracing; its context rides in the payload to the worker.
          return traceEnqueue(queue.name, jobId, data, (carrier) =>
            queue.add('execute-node', Object.assign(data, carrier), { ...EXECUTE_NODE_JOB_OPTIONS, jobId }),
          );
        }),
      );
      return true;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, runId }, 'enqueue failed; the reconciler will retry');
      return false;
    }
  }

  /** Removes the queued jobs of nodes that will not run (cancel); a job already executing is aborted instead. */
  async drop(runId: string, nodes: Dispatch[]): Promise<void> {
    await Promise.all(
      nodes.map((node) =>
        this.queueFor(node.nodeType)
          .remove(executeNodeJobId({ runId, nodeId: node.nodeId, attempt: node.attempt }))
          .catch(() => 0),
      ),
    );
  }
}
