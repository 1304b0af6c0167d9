import type { FailureReason, NodeType } from '@weft/contracts';
import type { NodeValue } from '@weft/nodes';
import type { PoolClient } from 'pg';

// The rows the engine reads and locks, and the statements over them.

export interface RunRow {
  id: string;
  organization_id: string;
  kind: 'agent' | 'app';
  agent_id: string;
  agent_version_id: string;
  app_id: string | null;
  status: 'in_progress' | 'completed' | 'failed' | 'canceled';
  reserved_credits: number;
}

export type NodeStatus = 'pending' | 'running' | 'waiting_review' | 'completed' | 'failed' | 'canceled' | 'skipped';

export interface NodeRow {
  node_id: string;
  node_type: NodeType;
  status: NodeStatus;
  attempt: number;
  cost: number;
  output: NodeValue | null;
}

const RUN_COLUMNS = 'id, organization_id, kind, agent_id, agent_version_id, app_id, status, reserved_credits';

/**
 * Locks the run row for the rest of the transaction. Every transition of a
 * run (node completion, review decision, cancel, failure) takes this lock
 * first, so they serialise per run: two branches finishing at once cannot
 * both miss the node that waits for both, and a cancel cannot interleave
 * with a completion. Always taken before any node row, so there is no
 * lock-order deadlock.
 */
export async function lockRun(client: PoolClient, runId: string, orgId?: string): Promise<RunRow | undefined> {
  const { rows } = await client.query<RunRow>(
    orgId === undefined
      ? {
          name: 'engine_lock_run_v1',
          text: `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE`,
          values: [runId],
        }
      : {
          name: 'engine_lock_org_run_v1',
          text: `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
          values: [runId, orgId],
        },
  );
  return rows[0];
}

export async function loadNodes(client: Pick<PoolClient, 'query'>, runId: string): Promise<NodeRow[]> {
  const { rows } = await client.query<NodeRow>({
    name: 'engine_load_nodes_v1',
    text: 'SELECT node_id, node_type, status, attempt, cost, output FROM node_executions WHERE run_id = $1',
    values: [runId],
  });
  return rows;
}

/** Sum of the node costs incurred, capped at the reservation: the estimate is the most a run can cost. */
export function actualCost(run: RunRow, nodes: NodeRow[]): number {
  const incurred = nodes.reduce((sum, node) => sum + node.cost, 0);
  return Math.min(incurred, run.reserved_credits);
}

/**
 * Gives back the reservation and charges `cost`, with one ledger line each,
 * so the ledger explains the balance line by line.
 */
export async function settleCredits(client: PoolClient, run: RunRow, cost: number, newId: () => string): Promise<void> {
  if (run.reserved_credits === 0 && cost === 0) return;
  // The ledger lines first: the organization row's lock is held until COMMIT.
  const lines = [
    { kind: 'release', amount: run.reserved_credits, note: 'reservation released' },
    { kind: 'charge', amount: -cost, note: 'run cost' },
  ].filter((line) => line.amount !== 0);
  await client.query({
    name: 'engine_ledger_settle_v1',
    text: `INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
           SELECT unnest($1::uuid[]), $2::uuid, $3::uuid, unnest($4::"LedgerKind"[]), unnest($5::int[]), unnest($6::text[])`,
    values: [
      lines.map(() => newId()),
      run.organization_id,
      run.id,
      lines.map((l) => l.kind),
      lines.map((l) => l.amount),
      lines.map((l) => l.note),
    ],
  });
  await client.query({
    name: 'engine_settle_credits_v1',
    text: 'UPDATE organizations SET credits = credits + $2 WHERE id = $1',
    values: [run.organization_id, run.reserved_credits - cost],
  });
}

export interface EndState {
  status: 'failed' | 'canceled';
  reason: FailureReason;
  error: string | null;
}

/**
 * Ends a run that did not complete: the run row, every node and review still
 * open, and the credits (what was consumed is charged, the rest released).
 */
export async function endRun(
  client: PoolClient,
  run: RunRow,
  nodes: NodeRow[],
  end: EndState,
  newId: () => string,
): Promise<void> {
  const cost = actualCost(run, nodes);
  await client.query({
    name: 'engine_end_run_v1',
    text: `UPDATE runs SET status = $2::"RunStatus", failure_reason = $3::"FailureReason", error = $4, cost = $5,
                  current_node = NULL, awaiting_human_review = false, completed_at = now(), updated_at = now()
            WHERE id = $1`,
    values: [run.id, end.status, end.reason, end.error, cost],
  });
  await client.query({
    name: 'engine_cancel_open_nodes_v1',
    text: `UPDATE node_executions SET status = 'canceled', completed_at = now()
            WHERE run_id = $1 AND status IN ('pending', 'running', 'waiting_review')`,
    values: [run.id],
  });
  await client.query({
    name: 'engine_cancel_open_reviews_v1',
    text: `UPDATE reviews SET status = 'canceled', decided_at = now() WHERE run_id = $1 AND status = 'pending'`,
    values: [run.id],
  });
  await settleCredits(client, run, cost, newId);
}
