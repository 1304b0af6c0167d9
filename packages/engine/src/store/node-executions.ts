import type { NodeValue } from '@weft/nodes';
import type { Pool, PoolClient } from 'pg';
import { NODE, RUN } from '@weft/dag';
import type { RunRow } from './run-rows';

// Statements on node rows outside a commit (commit-transition.ts): a review's
// decision, a failure, and what the reconciler looks for. Each runs under the
// run's lock (lockRun), and the rows it changes record the version the lock
// moved the run to (run_version).

/** The locked run: its id, and the version lockRun moved it to. */
type LockedRun = Pick<RunRow, 'id' | 'version'>;

/** The approved node completes with the reviewer's output. */
export async function completeReviewedNode(
  client: PoolClient,
  run: LockedRun,
  nodeId: string,
  output: NodeValue,
): Promise<void> {
  await client.query(
    `UPDATE node_executions SET status = '${NODE.completed}', output = $3, completed_at = now(), run_version = $4
      WHERE run_id = $1 AND node_id = $2 AND status = '${NODE.waitingReview}'`,
    [run.id, nodeId, JSON.stringify(output), run.version],
  );
}

/**
 * Moves nodes to their next attempt (a new job id): `waiting` become pending,
 * to be dispatched once their upstream nodes settle anew; `dispatched` are
 * dispatched at once (their own upstream nodes keep their outputs).
 */
export async function rerunNodes(
  client: PoolClient,
  run: LockedRun,
  waiting: string[],
  dispatched: string[],
): Promise<void> {
  await client.query(
    `UPDATE node_executions SET status = '${NODE.pending}', attempt = attempt + 1, output = NULL,
            started_at = NULL, completed_at = NULL, run_version = $3
      WHERE run_id = $1 AND node_id = ANY($2::text[])`,
    [run.id, waiting, run.version],
  );
  await client.query(
    `UPDATE node_executions SET status = '${NODE.running}', attempt = attempt + 1, output = NULL,
            started_at = now(), completed_at = NULL, run_version = $3
      WHERE run_id = $1 AND node_id = ANY($2::text[])`,
    [run.id, dispatched, run.version],
  );
}

/** Marks the node failed if this attempt still holds it (dispatched); false when it no longer does. */
export async function failNodeAttempt(
  client: PoolClient,
  run: LockedRun,
  node: { nodeId: string; attempt: number },
  error: string,
): Promise<boolean> {
  const updated = await client.query({
    name: 'engine_fail_node_v2',
    text: `UPDATE node_executions SET status = '${NODE.failed}', error = $4, completed_at = now(), run_version = $5
            WHERE run_id = $1 AND node_id = $2 AND status = '${NODE.running}' AND attempt = $3`,
    values: [run.id, node.nodeId, node.attempt, error, run.version],
  });
  return updated.rowCount !== 0;
}

export interface StaleNode {
  run_id: string;
  organization_id: string;
  node_id: string;
  attempt: number;
  node_type: string;
}

/** Dispatched nodes of runs in progress that have not moved for `staleMs`. */
export async function staleDispatchedNodes(pool: Pool, staleMs: number, limit: number): Promise<StaleNode[]> {
  const { rows } = await pool.query<StaleNode>({
    name: 'engine_stale_dispatched_nodes_v2',
    text: `SELECT n.run_id, r.organization_id, n.node_id, n.attempt, n.node_type
             FROM runs r JOIN node_executions n ON n.run_id = r.id
            WHERE r.status = '${RUN.inProgress}' AND r.updated_at < now() - make_interval(secs => $1::float8 / 1000)
              AND n.status = '${NODE.running}'
            LIMIT $2`,
    values: [staleMs, limit],
  });
  return rows;
}
