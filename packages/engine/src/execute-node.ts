import type { FlowNode, RunInput } from '@weft/contracts';
import { linksOf } from '@weft/dag';
import {
  executorFor,
  isInstantNode,
  NodeFailure,
  timeoutOf,
  type NodeContext,
  type NodeResult,
  type NodeValue,
} from '@weft/nodes';
import type { ExecuteNodeJob } from '@weft/queue';
import type { Pool } from 'pg';
import { derivedUuid } from './ids';
import type { EngineCore } from './engine-core';
import { reportRunEnded } from './engine-hooks';
import { failNode } from './fail-node';
import { nodeAssets } from './node-assets';
import { commitTransition, type NodeSettlement } from './commit-transition';
import type { NodeRow, RunRow } from './run-rows';
import { planTransition, type Dispatch } from './transition';
import { TransientError } from './transient';

/** Port → upstream value(s), from the node's links and the upstream rows. */
function resolveInputs(node: FlowNode, byId: Map<string, NodeRow>): Record<string, NodeValue | NodeValue[]> {
  const out: Record<string, NodeValue | NodeValue[]> = {};
  for (const link of linksOf(node)) {
    const value = byId.get(link.target)?.output ?? { type: 'data', value: null };
    if (link.index === undefined) out[link.port] = value;
    else ((out[link.port] ??= []) as NodeValue[]).push(value);
  }
  return out;
}

/** A run as an execution read it: its row at `run.version`, its inputs and its node rows. */
export interface RunSnapshot {
  run: RunRow;
  inputs: RunInput[];
  nodes: NodeRow[];
}

/** What executing a node left behind for its caller. */
export interface ExecutedNode {
  /** Instant nodes its completion made ready (isInstantNode), dispatched but not enqueued. */
  instant: Dispatch[];
  /** The run as this execution's commit left it: a hint that saves the next instant node its read. */
  snapshot: RunSnapshot | null;
}

const NOTHING: ExecutedNode = { instant: [], snapshot: null };

/** The run and its node rows in one round trip (once per queued node; instant nodes get a snapshot). */
export async function readRun(pool: Pool, runId: string): Promise<RunSnapshot | undefined> {
  const { rows } = await pool.query<RunRow & { inputs: RunInput[]; nodes: NodeRow[] | null }>({
    name: 'engine_load_run_for_node_v3',
    text: `SELECT r.id, r.organization_id, r.kind, r.agent_id, r.agent_version_id, r.app_id, r.status,
                  r.reserved_credits, r.version, r.inputs,
                  (SELECT json_agg(json_build_object('node_id', n.node_id, 'node_type', n.node_type, 'status', n.status,
                                                     'attempt', n.attempt, 'cost', n.cost, 'output', n.output))
                     FROM node_executions n WHERE n.run_id = r.id) AS nodes
             FROM runs r WHERE r.id = $1`,
    values: [runId],
  });
  const row = rows[0];
  if (!row) return undefined;
  const { inputs, nodes, ...run } = row;
  return { run, inputs, nodes: nodes ?? [] };
}

/** Whether `job` still holds its node in `snapshot`: the run in progress, the node dispatched at this attempt. */
function holds(snapshot: RunSnapshot | undefined, job: ExecuteNodeJob): snapshot is RunSnapshot {
  if (snapshot?.run.status !== 'in_progress') return false;
  const row = snapshot.nodes.find((n) => n.node_id === job.nodeId);
  return row?.status === 'running' && row.attempt === job.attempt;
}

/**
 * Executes one dispatched node (processor → here). Redelivery is harmless:
 * a node that is no longer `running` at this attempt, or a run that has
 * ended, is skipped; the completion commits only on the run version its
 * rows were read at, so of two executions of one attempt only the first
 * result counts.
 *
 * `known` is the run as a previous execution in this process left it (an
 * instant node's caller): it is used without reading the run again, and
 * trusted no further than any read, since the commit checks the version.
 *
 * Returns the instant nodes its completion made ready: they are dispatched
 * (`running`) but not enqueued, for the caller to execute at once. A caller
 * that cannot must enqueue them (Dispatcher.dispatch); if the process dies
 * first, the reconciler finds them without a job and enqueues them.
 */
export async function executeNode(core: EngineCore, job: ExecuteNodeJob, known?: RunSnapshot): Promise<ExecutedNode> {
  const snapshot = known ?? (await readRun(core.db.pool, job.runId));
  if (!holds(snapshot, job)) return NOTHING;
  const { run, nodes } = snapshot;

  const version = await core.versions.version(run.agent_version_id);
  const node = version.graph.node(job.nodeId)!;
  const executor = executorFor(node.type);
  const params = node.params ?? {};
  const timeoutMs = timeoutOf(node.type, params);
  const cancel = core.inFlight.start(run.id);
  // Instant nodes are synchronous text functions: a timer could not interrupt them, and costs one per node.
  const timeout = isInstantNode(node.type) ? undefined : AbortSignal.timeout(timeoutMs);
  const signal = timeout ? AbortSignal.any([cancel.signal, timeout]) : cancel.signal;
  const pool = core.db.pool;
  const ctx: NodeContext = {
    runId: run.id,
    nodeId: node.id,
    nodeType: node.type,
    attempt: job.attempt,
    params,
    inputs: resolveInputs(node, new Map(nodes.map((n) => [n.node_id, n]))),
    runInput: snapshot.inputs.find((i) => i.id === node.id)?.value,
    signal,
    assets: nodeAssets(
      pool,
      core.requireStorage(),
      {
        runId: run.id,
        nodeId: node.id,
        attempt: job.attempt,
        organizationId: run.organization_id,
        agentId: run.agent_id,
      },
      core.assetJobs,
    ),
    outboundAllowList: core.outboundAllowList,
  };

  const startedAt = new Date();
  let result: NodeResult;
  try {
    result = await executor.execute(ctx);
  } catch (err) {
    // Cancelled: the cancel already ended the run in PostgreSQL; nothing to record.
    if (cancel.signal.aborted) return NOTHING;
    if (err instanceof TransientError) throw err;
    const failure = timeout?.aborted
      ? new NodeFailure('timeout', `Node '${node.id}' did not finish within ${timeoutMs} ms`)
      : err instanceof NodeFailure
        ? err
        : internalFailure(core, node.id, err);
    await failNode(core, job, failure);
    return NOTHING;
  } finally {
    core.inFlight.finish(run.id, cancel);
  }
  const settle: NodeSettlement = {
    nodeId: job.nodeId,
    attempt: job.attempt,
    status: result.review ? 'waiting_review' : 'completed',
    output: result.output,
    cost: result.cost ?? 0,
    startedAt,
    review: result.review
      ? { id: derivedUuid('review', job.runId, job.nodeId, job.attempt), proposal: result.review }
      : null,
  };
  return completeNode(core, job, snapshot, settle);
}

function internalFailure(core: EngineCore, nodeId: string, err: unknown): NodeFailure {
  // Internal causes are logged in full and reported as `unknown` with a message safe to show.
  core.logger.error({ err, nodeId }, 'node executor failed unexpectedly');
  return new NodeFailure('unknown', `Node '${nodeId}' failed because of an internal error`);
}

/** Attempts at committing one completion before giving up: each failed one means another transition landed. */
const MAX_COMMIT_ATTEMPTS = 50;

/**
 * Commits the node's result and what follows from it in one statement, on
 * the version of the run it was computed from; when another transition
 * landed first (a sibling branch, a cancel, a redelivery), reads the run
 * again and recomputes, until it applies or the node is no longer this
 * job's to settle.
 */
async function completeNode(
  core: EngineCore,
  job: ExecuteNodeJob,
  read: RunSnapshot,
  settle: NodeSettlement,
): Promise<ExecutedNode> {
  const version = await core.versions.version(read.run.agent_version_id);
  const spec = await core.versions.resultSpec(read.run.agent_version_id, read.run.app_id);
  let snapshot: RunSnapshot | undefined = read;
  for (let attempt = 1; ; attempt++) {
    const run = { ...snapshot.run };
    // The rows as they will be once this commits, the ready ones marked by planTransition.
    const nodes = snapshot.nodes.map((n) =>
      n.node_id === settle.nodeId
        ? { ...n, status: settle.status, output: settle.output, cost: n.cost + settle.cost }
        : { ...n },
    );
    const transition = planTransition(run, nodes, version, spec);
    if (await commitTransition(core.db.pool, { run, settle, transition, startedAt: settle.startedAt })) {
      reportRunEnded(core, run);
      const instant = transition.ready.filter((d) => isInstantNode(d.nodeType));
      await core.dispatcher.dispatch(
        job.runId,
        transition.ready.filter((d) => !isInstantNode(d.nodeType)),
      );
      return { instant, snapshot: run.ended ? null : { run, inputs: snapshot.inputs, nodes } };
    }
    snapshot = await readRun(core.db.pool, job.runId);
    if (!holds(snapshot, job)) return NOTHING;
    if (attempt >= MAX_COMMIT_ATTEMPTS) {
      throw new Error(`Node '${job.nodeId}' could not commit: its run kept changing (${attempt} attempts)`);
    }
  }
}
