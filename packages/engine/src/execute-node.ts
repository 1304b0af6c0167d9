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
import { derivedUuid } from './ids';
import type { EngineCore } from './engine-core';
import { reportRunEnded } from './engine-hooks';
import { failNode } from './fail-node';
import { nodeAssets } from './node-assets';
import { lockRun, type NodeRow, type RunRow } from './run-rows';
import { advance, type Dispatch } from './advance';
import { TransientError } from './transient';
import { Rollback, withTransaction } from './tx';

interface ExecutionRow extends RunRow {
  inputs: RunInput[];
  nodes: NodeRow[] | null;
}

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

/**
 * Executes one dispatched node (processor → here). Redelivery is harmless:
 * a node that is no longer `running` at this attempt, or a run that has
 * ended, is skipped; the completion is a conditional update, so of two
 * executions of one attempt only the first result counts.
 *
 * Returns the instant nodes its completion made ready (isInstantNode): they
 * are dispatched (`running`) but not enqueued, for the caller to execute at
 * once. A caller that cannot must enqueue them (Dispatcher.dispatch); if the
 * process dies first, the reconciler finds them without a job and enqueues them.
 */
export async function executeNode(core: EngineCore, job: ExecuteNodeJob): Promise<Dispatch[]> {
  const { pool } = core.db;
  // The run and its node rows in one round trip: this read happens for every node.
  const runs = await pool.query<ExecutionRow>({
    name: 'engine_load_run_for_node_v2',
    text: `SELECT r.id, r.organization_id, r.kind, r.agent_id, r.agent_version_id, r.app_id, r.status,
                  r.reserved_credits, r.inputs,
                  (SELECT json_agg(json_build_object('node_id', n.node_id, 'node_type', n.node_type, 'status', n.status,
                                                     'attempt', n.attempt, 'cost', n.cost, 'output', n.output))
                     FROM node_executions n WHERE n.run_id = r.id) AS nodes
             FROM runs r WHERE r.id = $1`,
    values: [job.runId],
  });
  const run = runs.rows[0];
  if (!run || run.status !== 'in_progress') return [];
  const nodes = run.nodes ?? [];
  const row = nodes.find((n) => n.node_id === job.nodeId);
  if (!row || row.status !== 'running' || row.attempt !== job.attempt) return [];

  const version = await core.versions.version(run.agent_version_id);
  const node = version.graph.node(job.nodeId)!;
  const executor = executorFor(node.type);
  const params = node.params ?? {};
  const timeoutMs = timeoutOf(node.type, params);
  const cancel = core.inFlight.start(run.id);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([cancel.signal, timeout]);
  const ctx: NodeContext = {
    runId: run.id,
    nodeId: node.id,
    nodeType: node.type,
    attempt: job.attempt,
    params,
    inputs: resolveInputs(node, new Map(nodes.map((n) => [n.node_id, n]))),
    runInput: run.inputs.find((i) => i.id === node.id)?.value,
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
    if (cancel.signal.aborted) return [];
    if (err instanceof TransientError) throw err;
    const failure = timeout.aborted
      ? new NodeFailure('timeout', `Node '${node.id}' did not finish within ${timeoutMs} ms`)
      : err instanceof NodeFailure
        ? err
        : internalFailure(core, node.id, err);
    await failNode(core, job, failure);
    return [];
  } finally {
    core.inFlight.finish(run.id, cancel);
  }
  return completeNode(core, job, result, startedAt);
}

function internalFailure(core: EngineCore, nodeId: string, err: unknown): NodeFailure {
  // Internal causes are logged in full and reported as `unknown` with a message safe to show.
  core.logger.error({ err, nodeId }, 'node executor failed unexpectedly');
  return new NodeFailure('unknown', `Node '${nodeId}' failed because of an internal error`);
}

async function completeNode(
  core: EngineCore,
  job: ExecuteNodeJob,
  result: NodeResult,
  startedAt: Date,
): Promise<Dispatch[]> {
  let locked: RunRow | undefined;
  const dispatch = await withTransaction(core.db.pool, async (client) => {
    const run = (locked = await lockRun(client, job.runId));
    if (!run || run.status !== 'in_progress') throw new Rollback('run ended');
    const status = result.review ? 'waiting_review' : 'completed';
    // This node's completion and the run's other node rows in one statement.
    // It runs after the run lock was granted, so its snapshot holds every
    // sibling that completed before us; our own row comes from RETURNING.
    const { rows: nodes } = await client.query<NodeRow & { settled: boolean }>({
      // started_at becomes the executor's start (it held the dispatch time), in the commit that happens anyway.
      name: 'engine_complete_node_v3',
      text: `WITH settled AS (
               UPDATE node_executions SET status = $3::"NodeStatus", output = $4, cost = cost + $5, started_at = $7,
                      completed_at = CASE WHEN $3 = 'completed' THEN now() END
                WHERE run_id = $1 AND node_id = $2 AND status = 'running' AND attempt = $6
                RETURNING node_id, node_type, status, attempt, cost
             )
             SELECT node_id, node_type, status, attempt, cost, NULL::jsonb AS output, true AS settled FROM settled
             UNION ALL
             SELECT node_id, node_type, status, attempt, cost, output, false FROM node_executions
              WHERE run_id = $1 AND node_id <> $2`,
      values: [job.runId, job.nodeId, status, JSON.stringify(result.output), result.cost ?? 0, job.attempt, startedAt],
    });
    const own = nodes.find((n) => n.settled);
    if (!own) throw new Rollback('node already settled');
    own.output = result.output;
    if (result.review) {
      // Keyed by (run, node, attempt): a second execution of this attempt cannot open a second review.
      await client.query({
        name: 'engine_open_review_v1',
        text: `INSERT INTO reviews (id, run_id, node_id, status, proposed_output, created_at)
               VALUES ($1, $2, $3, 'pending', $4, now()) ON CONFLICT (id) DO NOTHING`,
        values: [
          derivedUuid('review', job.runId, job.nodeId, job.attempt),
          job.runId,
          job.nodeId,
          JSON.stringify(result.review),
        ],
      });
    }
    const version = await core.versions.version(run.agent_version_id);
    const spec = await core.versions.resultSpec(run.agent_version_id, run.app_id);
    return advance(client, run, nodes, version, spec, startedAt);
  }).catch((err: unknown) => {
    if (err instanceof Rollback) return [];
    throw err;
  });
  reportRunEnded(core, locked);
  const instant = dispatch.filter((d) => isInstantNode(d.nodeType));
  await core.dispatcher.dispatch(
    job.runId,
    dispatch.filter((d) => !isInstantNode(d.nodeType)),
  );
  return instant;
}
