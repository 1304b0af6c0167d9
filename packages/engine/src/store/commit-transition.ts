import { markOutputAssetsCte } from '@weft/assets';
import type { Pool, PoolClient } from 'pg';
import { uuidv7 } from '@weft/db';
import { settlementLines, type RunRow, type StoredOutput } from './run-rows';
import { runEventsOf, WEBHOOKS_PART } from './transition-events';
import type { Transition } from '@weft/dag';
import { NODE, REVIEW, RUN } from '@weft/dag';

/** A node's own result, written by the transition that follows from it. */
export interface NodeSettlement {
  nodeId: string;
  attempt: number;
  status: typeof NODE.completed | typeof NODE.waitingReview;
  output: StoredOutput;
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
 * the dispatched nodes, the nodes skipped, reviews opened, output assets, settlement ledger
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
  return (await commitTransitions(db, [write]))[0]!;
}

/**
 * The transitions of several runs in one statement (a worker's completions of
 * one moment, grouped-calls.ts), each applied or not on its own version, as
 * commitTransition would: returns, in the order of `writes`, whether each
 * applied. At most one write per run: two transitions of one run computed
 * from the same version cannot both apply. The run rows are updated in order
 * of run id, so that two statements over the same runs lock them in the same
 * order. Several writes: send them through a custom-plan pool (Db.customPlanPool).
 */
export async function commitTransitions(db: Pool | PoolClient, writes: TransitionWrite[]): Promise<boolean[]> {
  const sorted = [...writes].sort((a, b) => (a.run.id < b.run.id ? -1 : a.run.id > b.run.id ? 1 : 0));
  const values = columns(sorted);
  // Only the parts these transitions need: every table a statement names is opened and locked
  // (with its indexes) on each execution, whether or not a row changes.
  const parts: Part[] = [writes.length === 1 ? ONE_RUN_PART : RUNS_PART];
  if (values['settledRuns']) parts.push(SETTLE_PART);
  if (values['dispatchedRuns']) parts.push(DISPATCH_PART);
  if (values['skippedRuns']) parts.push(SKIP_PART);
  if (values['reviewRuns']) parts.push(REVIEW_PART);
  if (values['outputRuns']) parts.push(OUTPUTS_PART);
  if (values['ledgerRuns']) parts.push(LEDGER_PART);
  if (values['givenBackRuns']) parts.push(GIVE_BACK_PART);
  if (values['webhookRuns']) parts.push(WEBHOOKS_PART);
  const { rows } = await db.query<{ id: string }>(compose(parts, values));
  const applied = new Set(rows.map((r) => r.id));
  return writes.map((write) => {
    if (!applied.has(write.run.id)) return false;
    const { run } = write;
    run.version++;
    const done = write.transition.completion;
    if (done) run.ended = { status: RUN.completed, failureReason: null, cost: done.cost };
    return true;
  });
}

/**
 * The statement's parameters: one array per column, one element per run, node
 * settled, node dispatched, node skipped, review, output asset, ledger line,
 * credits given back or webhook event, each named for its part
 * (`settledNodes`, `ledgerAmounts`). A part whose arrays would be empty is absent.
 */
function columns(writes: TransitionWrite[]): Record<string, unknown[]> {
  const c: Record<string, unknown[]> = {};
  const push = (name: string, value: unknown) => (c[name] ??= []).push(value);
  for (const { run, settled, transition: t, startedAt } of writes) {
    const done = t.completion;
    const own = settled[0];
    push('runIds', run.id);
    push('versions', run.version);
    push('progress', t.progress);
    push('currentNodes', t.currentNode);
    push('awaiting', t.awaitingReview);
    push('startedAts', startedAt);
    push('completed', done !== null);
    push('results', done ? JSON.stringify(done.results) : null);
    push('costs', done ? done.cost : null);
    push('ownNodes', own?.nodeId ?? null);
    push('ownAttempts', own?.attempt ?? null);
    for (const e of runEventsOf({ run, settled, transition: t })) {
      push('webhookRuns', run.id);
      push('webhookEvents', e.event);
      push('webhookVersions', run.version + 1);
      push('webhookNodes', e.nodeId ?? null);
      push('webhookNodeStatuses', e.nodeStatus ?? null);
    }
    settled.forEach((n, i) => {
      push('settledRuns', run.id);
      push('settledNodes', n.nodeId);
      push('settledAttempts', n.attempt);
      push('settledStatuses', n.status);
      push('settledOutputs', JSON.stringify(n.output));
      push('settledCosts', n.cost);
      push('settledStartedAts', n.startedAt);
      push('settledCompletedAts', n.completedAt);
      push('settledFirst', i === 0);
      if (n.review) {
        push('reviewIds', n.review.id);
        push('reviewRuns', run.id);
        push('reviewNodes', n.nodeId);
        push('reviewProposals', JSON.stringify(n.review.proposal));
      }
    });
    for (const d of t.ready) {
      push('dispatchedRuns', run.id);
      push('dispatchedNodes', d.nodeId);
    }
    for (const nodeId of t.skipped) {
      push('skippedRuns', run.id);
      push('skippedNodes', nodeId);
    }
    if (!done) continue;
    for (const assetId of done.outputAssetIds) {
      push('outputRuns', run.id);
      push('outputAssets', assetId);
    }
    const ledger = settlementLines(run, done.cost, uuidv7, done.charges);
    ledger.ids.forEach((id, i) => {
      push('ledgerIds', id);
      push('ledgerOrgs', run.organization_id);
      push('ledgerRuns', run.id);
      push('ledgerKinds', ledger.kinds[i]);
      push('ledgerAmounts', ledger.amounts[i]);
      push('ledgerNotes', ledger.notes[i]);
    });
    // What the run gives back: a pending_credits row for the next reservation to add (ADR 0011).
    const back = run.reserved_credits - done.cost;
    if (back > 0) {
      push('givenBackIds', uuidv7());
      push('givenBackOrgs', run.organization_id);
      push('givenBackRuns', run.id);
      push('givenBackAmounts', back);
    }
  }
  return c;
}

interface Part {
  key: string;
  sql: string;
}

// The run rows first: every other part joins `r`, so it writes nothing for a run unless that run
// was still at the version read, and a run row is locked before any of its node rows (the order
// lockRun keeps too). The node the job executed must still be `running` at its attempt.
//
// One run is a one-row `u` (from the arrays' first elements), which leaves even a generic plan
// made on an empty table no cheaper way to the run than its primary key; a group of runs is sent
// through a pool whose statements are planned for their parameters (ADR 0014).
// `status::text`: given `status = …`, the planner could instead walk the status index's
// 'in_progress' entries, which ended runs leave behind as dead entries by the thousand until a vacuum.
const ONE_RUN = `SELECT ($runIds::uuid[])[1] AS id, ($versions::int[])[1] AS version,
           ($progress::float8[])[1] AS progress, ($currentNodes::text[])[1] AS current_node,
           ($awaiting::boolean[])[1] AS awaiting, ($startedAts::timestamptz[])[1] AS started_at,
           ($completed::boolean[])[1] AS completed, ($results::jsonb[])[1] AS results, ($costs::int[])[1] AS cost,
           ($ownNodes::text[])[1] AS own_node, ($ownAttempts::int[])[1] AS own_attempt`;
const RUNS = `SELECT * FROM unnest($runIds::uuid[], $versions::int[], $progress::float8[], $currentNodes::text[],
                         $awaiting::boolean[], $startedAts::timestamptz[], $completed::boolean[], $results::jsonb[],
                         $costs::int[], $ownNodes::text[], $ownAttempts::int[])
      AS u(id, version, progress, current_node, awaiting, started_at, completed, results, cost, own_node, own_attempt)`;
const runPart = (one: boolean): Part => ({
  key: one ? 'r' : 'R',
  sql: `u AS (
    ${one ? ONE_RUN : RUNS}
  ), r AS (
    UPDATE runs SET version = runs.version + 1, progress = u.progress, current_node = u.current_node,
           awaiting_human_review = u.awaiting, started_at = COALESCE(runs.started_at, u.started_at),
           status = CASE WHEN u.completed THEN '${RUN.completed}'::"RunStatus" ELSE runs.status END,
           results = CASE WHEN u.completed THEN u.results ELSE runs.results END,
           cost = CASE WHEN u.completed THEN u.cost ELSE runs.cost END,
           completed_at = CASE WHEN u.completed THEN now() ELSE runs.completed_at END,
           updated_at = now()
      FROM u
     WHERE runs.id = u.id AND runs.version = u.version AND runs.status::text = '${RUN.inProgress}'
       AND (u.own_node IS NULL OR EXISTS (
             SELECT 1 FROM node_executions n
              WHERE n.run_id = u.id AND n.node_id = u.own_node AND n.status = '${NODE.running}' AND n.attempt = u.own_attempt))
    RETURNING runs.id, runs.version
  )`,
});
const ONE_RUN_PART = runPart(true);
const RUNS_PART = runPart(false);
// Every node row a part changes records the version `r` moved the run to (run_version): a run's
// event stream sends the rows changed after the version it has sent.
// The first node settled of a run is the executed job's (`running`); the instant nodes after it were `pending`.
const SETTLE_PART: Part = {
  key: 's',
  sql: `settled AS (
    UPDATE node_executions n SET status = s.status, output = s.output, cost = n.cost + s.cost,
           started_at = s.started_at, completed_at = CASE WHEN s.status = '${NODE.completed}' THEN s.completed_at END,
           run_version = r.version
      FROM r JOIN unnest($settledRuns::uuid[], $settledNodes::text[], $settledAttempts::int[], $settledStatuses::"NodeStatus"[],
                         $settledOutputs::jsonb[], $settledCosts::int[], $settledStartedAts::timestamptz[], $settledCompletedAts::timestamptz[],
                         $settledFirst::boolean[])
                AS s(run_id, node_id, attempt, status, output, cost, started_at, completed_at, first) ON s.run_id = r.id
     WHERE n.run_id = s.run_id AND n.node_id = s.node_id AND n.attempt = s.attempt
       AND n.status = CASE WHEN s.first THEN '${NODE.running}'::"NodeStatus" ELSE '${NODE.pending}'::"NodeStatus" END
  )`,
};
const DISPATCH_PART: Part = {
  key: 'd',
  sql: `dispatched AS (
    UPDATE node_executions n SET status = '${NODE.running}', started_at = now(), run_version = r.version
      FROM r JOIN unnest($dispatchedRuns::uuid[], $dispatchedNodes::text[]) AS d(run_id, node_id) ON d.run_id = r.id
     WHERE n.run_id = d.run_id AND n.node_id = d.node_id AND n.status = '${NODE.pending}'
  )`,
};
const SKIP_PART: Part = {
  key: 'k',
  sql: `skipped AS (
    UPDATE node_executions n SET status = '${NODE.skipped}', completed_at = now(), run_version = r.version
      FROM r JOIN unnest($skippedRuns::uuid[], $skippedNodes::text[]) AS k(run_id, node_id) ON k.run_id = r.id
     WHERE n.run_id = k.run_id AND n.node_id = k.node_id AND n.status = '${NODE.pending}'
  )`,
};
const REVIEW_PART: Part = {
  key: 'v',
  sql: `review AS (
    INSERT INTO reviews (id, run_id, node_id, status, proposed_output, created_at)
    SELECT v.id, v.run_id, v.node_id, '${REVIEW.pending}', v.proposal, now()
      FROM r JOIN unnest($reviewIds::uuid[], $reviewRuns::uuid[], $reviewNodes::text[], $reviewProposals::jsonb[])
                AS v(id, run_id, node_id, proposal) ON v.run_id = r.id
    ON CONFLICT (id) DO NOTHING
  )`,
};
const OUTPUTS_PART: Part = {
  key: 'o',
  sql: markOutputAssetsCte({ cte: 'outputs', runs: 'r', runIds: '$outputRuns', assetIds: '$outputAssets' }),
};
const LEDGER_PART: Part = {
  key: 'l',
  sql: `ledger AS (
    INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
    SELECT l.id, l.org_id, l.run_id, l.kind, l.amount, l.note
      FROM r JOIN unnest($ledgerIds::uuid[], $ledgerOrgs::uuid[], $ledgerRuns::uuid[], $ledgerKinds::"LedgerKind"[], $ledgerAmounts::int[],
                         $ledgerNotes::text[]) AS l(id, org_id, run_id, kind, amount, note) ON l.run_id = r.id
  )`,
};
const GIVE_BACK_PART: Part = {
  key: 'b',
  sql: `given_back AS (
    INSERT INTO pending_credits (id, organization_id, amount)
    SELECT b.id, b.org_id, b.amount
      FROM r JOIN unnest($givenBackIds::uuid[], $givenBackOrgs::uuid[], $givenBackRuns::uuid[], $givenBackAmounts::int[])
                AS b(id, org_id, run_id, amount) ON b.run_id = r.id
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
    const sql = `WITH ${parts.map((p) => p.sql).join(', ')}\nSELECT id FROM r`;
    const text = sql.replace(/\$([a-zA-Z]+)/g, (_, name: string) => {
      let i = names.indexOf(name);
      if (i < 0) i = names.push(name) - 1;
      return `$${i + 1}`;
    });
    statement = { name: `engine_commit_transitions_${key}_v2`, text, names };
    composed.set(key, statement);
  }
  return { name: statement.name, text: statement.text, values: statement.names.map((n) => values[n] ?? []) };
}
