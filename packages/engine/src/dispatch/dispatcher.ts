import { isDefinedNodeType, isInstantNode, laneOf, type Lane } from '@weft/nodes';
import { EXECUTE_NODE_JOB_OPTIONS, executeNodeJobId, RUN_QUEUES, type ExecuteNodeJob } from '@weft/queue';
import { traceEnqueue } from '@weft/telemetry';
import { Queue } from 'bullmq';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import { OrgSlots, type OrgSlotsSettings } from './org-slots';
import type { Dispatch } from '@weft/dag';

const LANES: readonly Lane[] = ['light', 'heavy'];

export interface RunQueues {
  light: Queue<ExecuteNodeJob>;
  heavy: Queue<ExecuteNodeJob>;
  /** Each organization's share of each queue: a job enters it once it holds a slot of its lane. */
  slots: Record<Lane, OrgSlots>;
  close(): Promise<void>;
}

/**
 * An organization's share of each lane: the light lane's provider calls wait on
 * the network and cost a worker little, so its share is large; the heavy
 * lane's media work takes a core each, so its share is small.
 */
export interface LaneShares {
  light: OrgSlotsSettings;
  heavy: OrgSlotsSettings;
}

/** The two node queues over one connection (a producer's in the gateway, a worker's in workers). */
export function createRunQueues(connection: RedisClient, prefix: string, shares: LaneShares): RunQueues {
  const light = new Queue<ExecuteNodeJob>(RUN_QUEUES.light, { connection, prefix });
  const heavy = new Queue<ExecuteNodeJob>(RUN_QUEUES.heavy, { connection, prefix });
  for (const queue of [light, heavy]) queue.on('error', () => undefined);
  return {
    light,
    heavy,
    slots: {
      light: new OrgSlots(connection, prefix, shares.light, 'org-slots'),
      heavy: new OrgSlots(connection, prefix, shares.heavy, 'org-slots:media'),
    },
    async close() {
      await Promise.all([light.close(), heavy.close()]);
    },
  };
}

/**
 * Enqueues dispatched nodes after their transaction committed, each once it
 * holds one of its organization's slots (org-slots.ts); the others wait for
 * the slots of finishing jobs. Instant nodes (a run's text input, say) take
 * none: they compute from their inputs in about a millisecond, so they never
 * keep a worker from another organization's work, and a slot would only
 * throttle an organization's creates. Job ids are deterministic, so a repeat (a
 * retried request, the reconciler) adds nothing. A failure here loses nothing
 * either: the nodes are `running` in PostgreSQL and the reconciler enqueues
 * them again when their run stops moving.
 */
export class Dispatcher {
  constructor(
    private readonly queues: RunQueues,
    private readonly logger: Logger,
  ) {}

  queueFor(nodeType: string): Queue<ExecuteNodeJob> {
    return laneOf(nodeType) === 'heavy' ? this.queues.heavy : this.queues.light;
  }

  async dispatch(orgId: string, runId: string, nodes: Dispatch[]): Promise<boolean> {
    if (nodes.length === 0) return true;
    try {
      const job = (node: Dispatch): ExecuteNodeJob => ({
        runId,
        nodeId: node.nodeId,
        attempt: node.attempt,
        nodeType: node.nodeType,
      });
      const admitted = await Promise.all(
        LANES.map((lane) => {
          const slotted = nodes.filter((node) => !isInstantNode(node.nodeType) && laneOf(node.nodeType) === lane);
          return slotted.length > 0
            ? this.queues.slots[lane].admit(
                orgId,
                slotted.map((node) => ({ ...job(node), organizationId: orgId })),
              )
            : [];
        }),
      );
      const instant = nodes.filter((node) => isInstantNode(node.nodeType)).map(job);
      await this.enqueue([...instant, ...admitted.flat()]);
      return true;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, runId }, 'enqueue failed; the reconciler will retry');
      return false;
    }
  }

  /**
   * A job is done (completed, skipped, or failed for good): its slot goes to
   * the organization's oldest waiting job. When giving it back fails, the
   * slot's lease lapses and the reconciler lets the next one through.
   */
  async finished(job: ExecuteNodeJob): Promise<void> {
    if (!job.organizationId) return;
    const lane = job.nodeType && isDefinedNodeType(job.nodeType) ? laneOf(job.nodeType) : 'light';
    await this.release(job.organizationId, lane, [executeNodeJobId(job)]).catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, 'giving back a slot failed; its lease will lapse');
    });
  }

  /** Whether a dispatched node has no job because it waits for a slot (the reconciler leaves it be). */
  async waitsForSlot(orgId: string, node: Dispatch & { runId: string }): Promise<boolean> {
    return (
      !isInstantNode(node.nodeType) && this.queues.slots[laneOf(node.nodeType)].isWaiting(orgId, executeNodeJobId(node))
    );
  }

  /** Hands lapsed slots of the organization to its waiting jobs (after a lost release or a killed worker). */
  async pump(orgId: string): Promise<void> {
    const ready = await Promise.all(LANES.map((lane) => this.queues.slots[lane].admit(orgId, [])));
    await this.enqueue(ready.flat());
  }

  /** Removes the queued jobs of nodes that will not run (cancel); a job already executing is aborted instead. */
  async drop(orgId: string, runId: string, nodes: Dispatch[]): Promise<void> {
    const ids = nodes.map((node) => executeNodeJobId({ runId, nodeId: node.nodeId, attempt: node.attempt }));
    await Promise.all(
      nodes.map((node, i) =>
        this.queueFor(node.nodeType)
          .remove(ids[i]!)
          .catch(() => 0),
      ),
    );
    for (const lane of LANES) {
      const ofLane = ids.filter((_, i) => laneOf(nodes[i]!.nodeType) === lane);
      await this.release(orgId, lane, ofLane).catch(() => undefined);
    }
  }

  private async release(orgId: string, lane: Lane, jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await this.enqueue(await this.queues.slots[lane].release(orgId, jobIds));
  }

  private async enqueue(jobs: ExecuteNodeJob[]): Promise<void> {
    await Promise.all(
      jobs.map((data) => {
        const queue = this.queueFor(data.nodeType ?? '');
        const jobId = executeNodeJobId(data);
        // A producer span when tracing; its context rides in the payload to the worker.
        return traceEnqueue(queue.name, jobId, data, (carrier) =>
          queue.add('execute-node', Object.assign(data, carrier), { ...EXECUTE_NODE_JOB_OPTIONS, jobId }),
        );
      }),
    );
  }
}
