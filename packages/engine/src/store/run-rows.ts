import type { FailureReason, NodeType } from '@weft/contracts';
import type { NodeValue } from '@weft/nodes';
import {
  actualCost,
  NODE,
  nodeCharges,
  REVIEW,
  RUN,
  type EndedRunStatus,
  type NodeCharge,
  type NodeStatus,
  type RunStatus,
} from '@weft/dag';
import type { PoolClient } from 'pg';
import { markProviderJobsToCancel } from './provider-jobs';
import { recordRunEvents } from './webhook-events';

// The rows the engine reads and locks, and the statements over them.

export interface RunRow {
  id: string;
  organization_id: string;
  kind: 'agent' | 'app';
  agent_id: string;
  agent_version_id: string;
  app_id: string | null;
  status: RunStatus;
  reserved_credits: number;
  /** runs.version as read or locked: see commit-transition.ts. */
  version: number;
  /** Whether its transitions record webhook deliveries (runs.has_webhooks, webhook-events.ts). */
  has_webhooks: boolean;
  /** Set by endRun or completeRun when this transaction ends the run: reported to the hooks after the commit. */
  ended?: { status: EndedRunStatus; failureReason: FailureReason | null; cost: number };
}

/**
 * A node's output as its row holds it: the value, and for a node with named
 * outputs (a router) the ones that carry it (NodeResult.ports).
 */
export interface StoredOutput extends NodeValue {
  ports?: string[];
}

export interface NodeRow {
  node_id: string;
  node_type: NodeType;
  status: NodeStatus;
  attempt: number;
  cost: number;
  output: StoredOutput | null;
}

const RUN_COLUMNS =
  'id, organization_id, kind, agent_id, agent_version_id, app_id, status, reserved_credits, version, has_webhooks';

/**
 * Locks the run row for the rest of the transaction, and returns it at the
 * version it moved to: the version the node rows it then changes record
 * (node_executions.run_version). Every transition of a
 * run under a lock (review decision, cancel, failure) takes this lock first,
 * so they serialise per run: a cancel cannot interleave with a decision.
 * Always taken before any node row, so there is no lock-order deadlock.
 *
 * The lock is an UPDATE that bumps `version`: whatever the transaction then
 * changes, a node completion committed without a lock (commit-transition.ts)
 * on the version it read before cannot apply over it.
 */
export async function lockRun(client: PoolClient, runId: string, orgId?: string): Promise<RunRow | undefined> {
  const { rows } = await client.query<RunRow>(
    orgId === undefined
      ? {
          name: 'engine_lock_run_v3',
          text: `UPDATE runs SET version = version + 1 WHERE id = $1 RETURNING ${RUN_COLUMNS}`,
          values: [runId],
        }
      : {
          name: 'engine_lock_org_run_v3',
          text: `UPDATE runs SET version = version + 1 WHERE id = $1 AND organization_id = $2 RETURNING ${RUN_COLUMNS}`,
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

export interface SettlementLines {
  ids: string[];
  kinds: ('release' | 'charge')[];
  amounts: number[];
  notes: string[];
}

/**
 * The ledger lines that give back the reservation and charge `cost`: one
 * charge line per node that cost something (its usage is in node_charges),
 * cut at `cost` (the reservation caps what a run is charged). None when
 * everything is zero.
 */
export function settlementLines(
  run: RunRow,
  cost: number,
  newId: () => string,
  charges: NodeCharge[] = [],
): SettlementLines {
  const lines: { kind: 'release' | 'charge'; amount: number; note: string }[] = [];
  if (run.reserved_credits !== 0)
    lines.push({ kind: 'release', amount: run.reserved_credits, note: 'reservation released' });
  let left = cost;
  for (const charge of charges) {
    const amount = Math.min(charge.cost, left);
    if (amount <= 0) break;
    const capped = amount < charge.cost ? ` (${charge.cost}, capped at the reservation)` : '';
    lines.push({ kind: 'charge', amount: -amount, note: `node '${charge.nodeId}' (${charge.nodeType})${capped}` });
    left -= amount;
  }
  // A cost no node row explains (none should remain) is still charged, as the run's.
  if (left > 0) lines.push({ kind: 'charge', amount: -left, note: 'run cost' });
  return {
    ids: lines.map(() => newId()),
    kinds: lines.map((l) => l.kind),
    amounts: lines.map((l) => l.amount),
    notes: lines.map((l) => l.note),
  };
}

/**
 * Gives back the reservation and charges `cost`, with one ledger line each,
 * so the ledger explains the balance line by line. What comes back (the
 * reservation less the cost) is a pending_credits row, which the next
 * reservation adds to the organization's balance row (ADR 0011): every run of
 * an organization settling against that one row would serialise on it.
 */
export async function settleCredits(
  client: PoolClient,
  run: RunRow,
  cost: number,
  newId: () => string,
  charges: NodeCharge[],
): Promise<void> {
  const lines = settlementLines(run, cost, newId, charges);
  if (lines.ids.length === 0) return;
  const back = run.reserved_credits - cost;
  await client.query({
    name: 'engine_ledger_settle_v3',
    text: `WITH ledger AS (
             INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
             SELECT unnest($1::uuid[]), $2::uuid, $3::uuid, unnest($4::"LedgerKind"[]), unnest($5::int[]), unnest($6::text[])
           )
           INSERT INTO pending_credits (id, organization_id, amount) SELECT $7, $2, $8 WHERE $8 > 0`,
    values: [lines.ids, run.organization_id, run.id, lines.kinds, lines.amounts, lines.notes, newId(), back],
  });
}

export interface EndState {
  status: typeof RUN.failed | typeof RUN.canceled;
  reason: FailureReason;
  error: string | null;
  /** The node whose failure ends the run (already marked failed). */
  failedNode?: string;
}

/**
 * Ends a run that did not complete: the run row, every node and review still
 * open, the credits (what was consumed is charged, the rest released), and
 * its webhook events.
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
  // Before the open nodes are closed: which of them are still running says which jobs to cancel.
  await markProviderJobsToCancel(client, run.id);
  await client.query({
    name: 'engine_cancel_open_nodes_v2',
    text: `UPDATE node_executions SET status = '${NODE.canceled}', completed_at = now(), run_version = $2
            WHERE run_id = $1 AND status IN ('${NODE.pending}', '${NODE.running}', '${NODE.waitingReview}')`,
    values: [run.id, run.version],
  });
  await client.query({
    name: 'engine_cancel_open_reviews_v1',
    text: `UPDATE reviews SET status = '${REVIEW.canceled}', decided_at = now() WHERE run_id = $1 AND status = '${REVIEW.pending}'`,
    values: [run.id],
  });
  await settleCredits(client, run, cost, newId, nodeCharges(nodes));
  await recordRunEvents(client, run, [
    ...(end.failedNode ? [{ event: 'node' as const, nodeId: end.failedNode, nodeStatus: NODE.failed }] : []),
    { event: 'completed' },
  ]);
  run.ended = { status: end.status, failureReason: end.reason, cost };
}
