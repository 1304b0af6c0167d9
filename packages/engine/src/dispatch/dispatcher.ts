import { isDefinedNodeType, isInstantNode, laneOf, type Lane } from '@weft/nodes';
import {
  EXECUTE_NODE_JOB_OPTIONS,
  executeNodeJobId,
  queueShards,
  RUN_QUEUES,
  type ExecuteNodeJob,
  type RedisClient,
} from '@weft/queue';
import { traceEnqueue } from '@weft/telemetry';
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { OrgSlots, type OrgSlotsSettings } from './org-slots';
import type { Dispatch } from '@weft/dag';

const LANES: readonly Lane[] = ['light', 'heavy'];

export interface RunQueues {
  /** The light lane's queue of each shard (@weft/queue queue-shards.ts), by shard number: one on a single Redis. */
  lightShards: Queue<ExecuteNodeJob>[];
  /** Shard 0's light queue: every light job on a single Redis. */
  light: Queue<ExecuteNodeJob>;
  heavy: Queue<ExecuteNodeJob>;
  /** The queue a job of `nodeType` for the organization enters. */
  queueFor(nodeType: string, orgId: string | undefined): Queue<ExecuteNodeJob>;
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

/**
 * The node queues over one connection (a producer's in the gateway, a
 * worker's in workers): the light lane in `shards` shards on a cluster (each
 * organization's jobs and slots in its own shard), the heavy lane under `prefix`.
 */
export function createRunQueues(connection: RedisClient, prefix: string, shares: LaneShares, shards = 1): RunQueues {
  const layout = queueShards(prefix, shards);
  const lightShards = layout.prefixes.map(
    (shardPrefix) => new Queue<ExecuteNodeJob>(RUN_QUEUES.light, { connection, prefix: shardPrefix }),
  );
  const heavy = new Queue<ExecuteNodeJob>(RUN_QUEUES.heavy, { connection, prefix });
  const all = [...lightShards, heavy];
  for (const queue of all) queue.on('error', () => undefined);
  const lightOf = (orgId: string | undefined) => lightShards[layout.prefixes.indexOf(layout.prefixOf(orgId))]!;
  return {
    lightShards,
    light: lightShards[0]!,
    heavy,
    queueFor: (nodeType, orgId) => (laneOf(nodeType) === 'heavy' ? heavy : lightOf(orgId)),
    slots: {
      light: new OrgSlots(connection, layout.prefixOf, shares.light, 'org-slots'),
      heavy: new OrgSlots(connection, prefix, shares.heavy, 'org-slots:media'),
    },
    async close() {
      await Promise.all(all.map((queue) => queue.close()));
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

  queueFor(nodeType: string, orgId: string): Queue<ExecuteNodeJob> {
    return this.queues.queueFor(nodeType, orgId);
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
      await this.enqueue(orgId, [...instant, ...admitted.flat()]);
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
    await this.enqueue(orgId, ready.flat());
  }

  /** Removes the queued jobs of nodes that will not run (cancel); a job already executing is aborted instead. */
  async drop(orgId: string, runId: string, nodes: Dispatch[]): Promise<void> {
    const ids = nodes.map((node) => executeNodeJobId({ runId, nodeId: node.nodeId, attempt: node.attempt }));
    await Promise.all(
      nodes.map((node, i) =>
        this.queueFor(node.nodeType, orgId)
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
    await this.enqueue(orgId, await this.queues.slots[lane].release(orgId, jobIds));
  }

  /** Adds the organization's jobs to their queues (its shard's, for the light lane). */
  private async enqueue(orgId: string, jobs: ExecuteNodeJob[]): Promise<void> {
    await Promise.all(
      jobs.map((data) => {
        const queue = this.queueFor(data.nodeType ?? '', orgId);
        const jobId = executeNodeJobId(data);
        // A producer span when tracing; its context rides in the payload to the worker.
        return traceEnqueue(queue.name, jobId, data, (carrier) =>
          queue.add('execute-node', Object.assign(data, carrier), { ...EXECUTE_NODE_JOB_OPTIONS, jobId }),
        );
      }),
    );
  }
}
