import type { NodeValue } from '@weft/nodes';
import type { Pool, PoolClient } from 'pg';
import { uuidv7 } from './ids';
import { settlementLines, type RunRow } from './run-rows';
import type { Transition } from './transition';

/** A node's own result, written by the transition that follows from it. */
export interface NodeSettlement {
  nodeId: string;
  attempt: number;
  status: 'completed' | 'waiting_review';
  output: NodeValue;
  cost: number;
  /** When the executor started (the row held the dispatch time until now). */
  startedAt: Date;
  /** When it returned: an instant node's result is committed later, with the rest of its chain. */
  completedAt: Date;
  /** Opened when the node proposes an output for human review; keyed by (run, node, attempt). */
  review: { id: string; proposal: unknown } | null;
}

export interface TransitionWrite {
  /** The run as read at `run.version`: the statement applies only while that is still its version. */
  run: RunRow;
  /**
   * The nodes settled: first the executed job's own node (`running` at its
   * attempt when read), then the instant nodes executed after it (`pending`
   * when read, ADR 0013). Empty for a transition without a node result.
   */
  settled: NodeSettlement[];
  transition: Transition;
  /** The run's started_at when it has none yet. */
  startedAt: Date | null;
}

/**
 * Writes a run's transition in one statement: the run row (progress,
 * current_node, or its completion with results and cost), the settled nodes,
 * the dispatched nodes, reviews opened, output assets, settlement ledger
 * lines and the credits the run gives back (pending_credits, ADR 0011).
 *
 * Every change to a run's node rows bumps `runs.version` in the same
 * transaction (this statement, or lockRun), so a run still at the version its
 * rows were read at has exactly those rows: the transition computed from them
 * is right, and the statement needs no lock held across a round trip. When
 * the version moved on (a sibling branch completed, a cancel, a redelivered
 * job), the run row's condition fails, every other part joins the run row and
 * so writes nothing, and this returns false: read again and recompute.
 * Committed on its own (pool), a node completion is one round trip.
 */
export async function commitTransition(db: Pool | PoolClient, write: TransitionWrite): Promise<boolean> {
  const { run, settled, transition: t } = write;
  const own = settled[0];
  const reviews = settled.filter((n) => n.review);
  const done = t.completion;
  const ledger = done ? settlementLines(run, done.cost, uuidv7) : undefined;
  // What the run gives back: a pending_credits row for the next reservation to add (ADR 0011).
  const back = done ? run.reserved_credits - done.cost : 0;
  // Only the parts this transition needs: every table a statement names is opened and locked
  // (with its indexes) on each execution, whether or not a row changes.
  const parts: Part[] = [RUN_PART];
  if (own) parts.push(SETTLE_PART);
  if (t.ready.length > 0) parts.push(DISPATCH_PART);
  if (reviews.length > 0) parts.push(REVIEW_PART);
  if (done && done.outputAssetIds.length > 0) parts.push(OUTPUTS_PART);
  if (ledger && ledger.ids.length > 0) parts.push(LEDGER_PART);
  if (back > 0) parts.push(GIVE_BACK_PART);
  const statement = compose(parts, {
    runId: run.id,
    version: run.version,
    ready: t.ready.map((d) => d.nodeId),
    progress: t.progress,
    currentNode: t.currentNode,
    awaiting: t.awaitingReview,
    startedAt: write.startedAt,
    completed: done !== null,
    results: done ? JSON.stringify(done.results) : null,
    cost: done ? done.cost : null,
    nodeId: own?.nodeId ?? null,
    attempt: own?.attempt ?? null,
    nodeIds: settled.map((n) => n.nodeId),
    nodeAttempts: settled.map((n) => n.attempt),
    nodeStatuses: settled.map((n) => n.status),
    outputs: settled.map((n) => JSON.stringify(n.output)),
    nodeCosts: settled.map((n) => n.cost),
    nodeStartedAts: settled.map((n) => n.startedAt),
    nodeCompletedAts: settled.map((n) => n.completedAt),
    reviewIds: reviews.map((n) => n.review!.id),
    reviewNodes: reviews.map((n) => n.nodeId),
    proposals: reviews.map((n) => JSON.stringify(n.review!.proposal)),
    outputAssets: done?.outputAssetIds ?? [],
    orgId: run.organization_id,
    ledgerIds: ledger?.ids ?? [],
    ledgerKinds: ledger?.kinds ?? [],
    ledgerAmounts: ledger?.amounts ?? [],
    ledgerNotes: ledger?.notes ?? [],
    pendingId: back > 0 ? uuidv7() : null,
    back,
  });
  const { rows } = await db.query<{ applied: number }>(statement);
  if (rows[0]!.applied === 0) return false;
  run.version++;
  if (done) run.ended = { status: 'completed', failureReason: null, cost: done.cost };
  return true;
}

interface Part {
  key: string;
  sql: string;
}

// The run row first: every other part joins `r`, so it writes nothing unless the run was still at
// the version read, and the run row is locked before any node row (the order lockRun keeps too).
const RUN_PART: Part = {
  key: 'r',
  sql: `r AS (
    UPDATE runs SET version = version + 1, progress = $progress, current_node = $currentNode,
           awaiting_human_review = $awaiting, started_at = COALESCE(started_at, $startedAt),
           status = CASE WHEN $completed THEN 'completed'::"RunStatus" ELSE status END,
           results = CASE WHEN $completed THEN $results::jsonb ELSE results END,
           cost = CASE WHEN $completed THEN $cost::int ELSE cost END,
           completed_at = CASE WHEN $completed THEN now() ELSE completed_at END,
           updated_at = now()
     WHERE id = $runId AND version = $version AND status = 'in_progress'
       AND ($nodeId::text IS NULL OR EXISTS (
             SELECT 1 FROM node_executions
              WHERE run_id = $runId AND node_id = $nodeId AND status = 'running' AND attempt = $attempt))
    RETURNING id
  )`,
};
// The first node settled is the executed job's (`running`); the instant nodes after it were `pending`.
const SETTLE_PART: Part = {
  key: 's',
  sql: `settled AS (
    UPDATE node_executions n SET status = s.status, output = s.output, cost = n.cost + s.cost,
           started_at = s.started_at, completed_at = CASE WHEN s.status = 'completed' THEN s.completed_at END
      FROM r, unnest($nodeIds::text[], $nodeAttempts::int[], $nodeStatuses::"NodeStatus"[], $outputs::jsonb[],
                     $nodeCosts::int[], $nodeStartedAts::timestamptz[], $nodeCompletedAts::timestamptz[]) WITH ORDINALITY
              AS s(node_id, attempt, status, output, cost, started_at, completed_at, ord)
     WHERE n.run_id = r.id AND n.node_id = s.node_id AND n.attempt = s.attempt
       AND n.status = CASE WHEN s.ord = 1 THEN 'running'::"NodeStatus" ELSE 'pending'::"NodeStatus" END
  )`,
};
const DISPATCH_PART: Part = {
  key: 'd',
  sql: `dispatched AS (
    UPDATE node_executions n SET status = 'running', started_at = now()
      FROM r WHERE n.run_id = r.id AND n.node_id = ANY($ready::text[]) AND n.status = 'pending'
  )`,
};
const REVIEW_PART: Part = {
  key: 'v',
  sql: `review AS (
    INSERT INTO reviews (id, run_id, node_id, status, proposed_output, created_at)
    SELECT v.id, r.id, v.node_id, 'pending', v.proposal, now()
      FROM r, unnest($reviewIds::uuid[], $reviewNodes::text[], $proposals::jsonb[]) AS v(id, node_id, proposal)
    ON CONFLICT (id) DO NOTHING
  )`,
};
const OUTPUTS_PART: Part = {
  key: 'o',
  sql: `outputs AS (
    UPDATE assets a SET asset_type = 'output', updated_at = now()
      FROM r WHERE a.run_id = r.id AND a.id = ANY($outputAssets::uuid[]) AND a.asset_type = 'intermediate'
  )`,
};
const LEDGER_PART: Part = {
  key: 'l',
  sql: `ledger AS (
    INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
    SELECT l.id, $orgId::uuid, r.id, l.kind, l.amount, l.note
      FROM r, unnest($ledgerIds::uuid[], $ledgerKinds::"LedgerKind"[], $ledgerAmounts::int[], $ledgerNotes::text[])
              AS l(id, kind, amount, note)
  )`,
};
const GIVE_BACK_PART: Part = {
  key: 'b',
  sql: `given_back AS (
    INSERT INTO pending_credits (id, organization_id, amount) SELECT $pendingId::uuid, $orgId::uuid, $back::int FROM r
  )`,
};

const composed = new Map<string, { name: string; text: string; names: string[] }>();

/**
 * One prepared statement per combination of parts (a handful occur), with the
 * `$name` placeholders numbered in order of first appearance.
 */
function compose(parts: Part[], values: Record<string, unknown>): { name: string; text: string; values: unknown[] } {
  const key = parts.map((p) => p.key).join('');
  let statement = composed.get(key);
  if (!statement) {
    const names: string[] = [];
    const sql = `WITH ${parts.map((p) => p.sql).join(', ')}\nSELECT count(*)::int AS applied FROM r`;
    const text = sql.replace(/\$([a-zA-Z]+)/g, (_, name: string) => {
      let i = names.indexOf(name);
      if (i < 0) i = names.push(name) - 1;
      return `$${i + 1}`;
    });
    statement = { name: `engine_commit_transition_${key}_v2`, text, names };
    composed.set(key, statement);
  }
  return { name: statement.name, text: statement.text, values: statement.names.map((n) => values[n]) };
}
