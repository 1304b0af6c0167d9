import type { Db } from '@weft/db';

// What the engine left in PostgreSQL, read the way an assertion wants it.

export interface StoredRun {
  status: string;
  failure_reason: string | null;
  error: string | null;
  results: unknown;
  cost: number | null;
  reserved_credits: number;
  current_node: string | null;
  awaiting_human_review: boolean;
  version: number;
}

export async function storedRun(db: Db, runId: string): Promise<StoredRun> {
  const { rows } = await db.pool.query<StoredRun>(
    `SELECT status, failure_reason, error, results, cost, reserved_credits, current_node, awaiting_human_review,
            version
       FROM runs WHERE id = $1`,
    [runId],
  );
  if (!rows[0]) throw new Error(`No run ${runId}`);
  return rows[0];
}

export interface StoredNode {
  status: string;
  attempt: number;
  output: unknown;
  cost: number;
  error: string | null;
}

/** The run's node rows by node id. */
export async function storedNodes(db: Db, runId: string): Promise<Record<string, StoredNode>> {
  const { rows } = await db.pool.query<StoredNode & { node_id: string }>(
    'SELECT node_id, status, attempt, output, cost, error FROM node_executions WHERE run_id = $1',
    [runId],
  );
  return Object.fromEntries(rows.map(({ node_id, ...node }) => [node_id, node]));
}

/** The node rows' statuses by node id: the shape of a run at a glance. */
export async function nodeStatuses(db: Db, runId: string): Promise<Record<string, string>> {
  const nodes = await storedNodes(db, runId);
  return Object.fromEntries(Object.entries(nodes).map(([id, node]) => [id, node.status]));
}

export interface StoredReview {
  id: string;
  node_id: string;
  status: string;
  proposed_output: unknown;
  output: unknown;
}

/** The run's reviews, oldest first. */
export async function storedReviews(db: Db, runId: string): Promise<StoredReview[]> {
  const { rows } = await db.pool.query<StoredReview>(
    'SELECT id, node_id, status, proposed_output, output FROM reviews WHERE run_id = $1 ORDER BY created_at, id',
    [runId],
  );
  return rows;
}

export interface LedgerLine {
  kind: string;
  amount: number;
  note: string | null;
}

/** The run's credit ledger lines in the order they were written (their ids are time-ordered). */
export async function ledgerOf(db: Db, runId: string): Promise<LedgerLine[]> {
  const { rows } = await db.pool.query<LedgerLine>(
    'SELECT kind, amount, note FROM credit_ledger WHERE run_id = $1 ORDER BY id',
    [runId],
  );
  return rows;
}

export interface Balance {
  /** organizations.credits: what the last reservation left. */
  credits: number;
  /** Credits settled runs gave back that no reservation has added yet. */
  pending: number;
  /** What the organization can spend: credits + pending. */
  total: number;
}

export async function balanceOf(db: Db, organizationId: string): Promise<Balance> {
  const { rows } = await db.pool.query<{ credits: number; pending: string }>(
    `SELECT o.credits, (SELECT COALESCE(sum(amount), 0) FROM pending_credits p WHERE p.organization_id = o.id) AS pending
       FROM organizations o WHERE o.id = $1`,
    [organizationId],
  );
  const { credits, pending } = rows[0]!;
  return { credits, pending: Number(pending), total: credits + Number(pending) };
}
