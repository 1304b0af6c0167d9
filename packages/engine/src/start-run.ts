import type { FailureReason, RunInput } from '@weft/contracts';
import { violatesUniqueIndex } from '@weft/db';
import { ExternalIdConflictError } from '@weft/errors';
import type { Pool, PoolClient } from 'pg';
import { advance } from './advance';
import type { Dispatch } from './transition';
import type { VersionCache } from './flow-cache';
import { uuidv7 } from './ids';
import type { RunRow } from './run-rows';
import { withTransaction } from './tx';

export interface StartRunInput {
  organizationId: string;
  kind: 'agent' | 'app';
  agentId: string;
  agentVersionId: string;
  appId: string | null;
  externalId: string | undefined;
  /** As given by the caller (already validated): stored and echoed on the record. */
  inputs: RunInput[];
  estimatedCost: number;
}

export interface StartedRun {
  id: string;
  createdAt: Date;
  /** When it failed at creation (insufficient credits); null otherwise, also for a run completed at creation. */
  completedAt: Date | null;
  status: 'in_progress' | 'failed' | 'completed';
  failureReason: FailureReason | null;
  error: string | null;
  currentNode: string | null;
  agentVersion: number;
  /** Nodes to enqueue now that the run is committed. */
  dispatch: Dispatch[];
}

/** The only unique index the create statement can violate: runs' (organization_id, external_id). */
const EXTERNAL_ID_INDEX = 'runs_organization_id_external_id_key';

/**
 * One statement, committed on its own, reserves the estimated cost (a guarded
 * UPDATE of the organization's row and its ledger line) and writes the run and
 * its node rows, roots already dispatched; without the credits it writes the
 * run as failed with `insufficient_credits` and no nodes (extensions.md 6).
 * The reservation first adds the credits settled runs gave back since the
 * last one (pending_credits, ADR 0011), and deletes those rows, only when it
 * succeeds: the guard sees the whole balance, and each row is added once.
 *
 * One statement rather than a transaction of several: every run of an
 * organization updates its one row, and a row lock is held until COMMIT. In a
 * transaction that lock would span client round trips, and under load each of
 * those waits for a busy event loop, so creates of one organization queued
 * behind each other (about 90 runs/s in bench:runs). In one statement it is
 * held only while PostgreSQL finishes the statement and flushes the commit.
 *
 * A reused external_id violates the unique index, which aborts the whole
 * statement, reservation included: a rejected create claims and charges
 * nothing. The caller enqueues `dispatch` after this returns.
 */
export async function startRun(pool: Pool, versions: VersionCache, input: StartRunInput): Promise<StartedRun> {
  const version = await versions.version(input.agentVersionId);
  const graph = version.graph;
  const ids = graph.nodeIds();
  const roots = new Set(graph.roots());
  const firstRoot = ids.find((id) => roots.has(id));
  const runId = uuidv7();
  const insufficient = `Insufficient credits: this run needs ${input.estimatedCost}`;
  const statement = {
    name: 'engine_create_run_v3',
    text: `WITH pending AS (
             SELECT id, amount FROM pending_credits WHERE organization_id = $2 AND $9 > 0 FOR UPDATE
           ), reserved AS (
             UPDATE organizations SET credits = credits + (SELECT COALESCE(sum(amount), 0) FROM pending)::int - $9
              WHERE id = $2 AND $9 > 0 AND credits + (SELECT COALESCE(sum(amount), 0) FROM pending) >= $9
             RETURNING id
           ), applied AS (
             DELETE FROM pending_credits WHERE id IN (SELECT id FROM pending) AND EXISTS (SELECT 1 FROM reserved)
           ), funded AS (
             SELECT ($9 = 0 OR EXISTS (SELECT 1 FROM reserved)) AS ok
           ), run AS (
             INSERT INTO runs (id, organization_id, kind, agent_id, agent_version_id, app_id, external_id, inputs,
                               reserved_credits, current_node, status, failure_reason, error, cost, completed_at,
                               created_at, updated_at)
             SELECT $1, $2, $3::"RunKind", $4, $5, $6, $7, $8,
                    CASE WHEN ok THEN $9 ELSE 0 END, CASE WHEN ok THEN $10 END,
                    CASE WHEN ok THEN 'in_progress' ELSE 'failed' END::"RunStatus",
                    CASE WHEN ok THEN NULL ELSE 'insufficient_credits' END::"FailureReason",
                    CASE WHEN ok THEN NULL ELSE $11 END, CASE WHEN ok THEN NULL ELSE 0 END,
                    CASE WHEN ok THEN NULL ELSE now() END, now(), now()
               FROM funded
             RETURNING created_at, completed_at, status
           ), ledger AS (
             INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
             SELECT $12, id, $1, 'reserve', -$9::int, 'estimated cost reserved' FROM reserved
           ), nodes AS (
             INSERT INTO node_executions (id, run_id, node_id, node_type, status, started_at)
             SELECT t.id, $1, t.node_id, t.node_type, t.status, CASE WHEN t.status = 'running' THEN now() END
               FROM unnest($13::uuid[], $14::text[], $15::text[], $16::"NodeStatus"[]) AS t(id, node_id, node_type, status)
              WHERE (SELECT ok FROM funded)
           )
           SELECT created_at, completed_at, status = 'in_progress' AS funded FROM run`,
    values: [
      runId,
      input.organizationId,
      input.kind,
      input.agentId,
      input.agentVersionId,
      input.appId,
      input.externalId ?? null,
      JSON.stringify(input.inputs),
      input.estimatedCost,
      firstRoot ? graph.node(firstRoot)!.type : null,
      insufficient,
      uuidv7(),
      ids.map(() => uuidv7()),
      ids,
      ids.map((id) => graph.node(id)!.type),
      ids.map((id) => (roots.has(id) ? 'running' : 'pending')),
    ],
  };

  const create = async (client: Pick<PoolClient, 'query'>) => {
    try {
      const { rows } = await client.query<{ created_at: Date; completed_at: Date | null; funded: boolean }>(statement);
      return rows[0]!;
    } catch (err) {
      if (!violatesUniqueIndex(err, EXTERNAL_ID_INDEX)) throw err;
      const existing = await pool.query<{ id: string }>({
        name: 'engine_run_by_external_id_v1',
        text: 'SELECT id FROM runs WHERE organization_id = $1 AND external_id = $2',
        values: [input.organizationId, input.externalId],
      });
      throw new ExternalIdConflictError(existing.rows[0]?.id ?? runId);
    }
  };
  const base = { id: runId, agentVersion: version.version };
  // Written as failed by the create statement (extensions.md 6).
  const unfunded = (created: { created_at: Date; completed_at: Date | null }): StartedRun => ({
    ...base,
    createdAt: created.created_at,
    completedAt: created.completed_at,
    status: 'failed',
    failureReason: 'insufficient_credits',
    error: insufficient,
    currentNode: null,
    dispatch: [],
  });

  if (ids.length > 0) {
    const created = await create(pool);
    if (!created.funded) return unfunded(created);
    return {
      ...base,
      createdAt: created.created_at,
      completedAt: null,
      status: 'in_progress',
      failureReason: null,
      error: null,
      currentNode: firstRoot ? graph.node(firstRoot)!.type : null,
      dispatch: ids
        .filter((id) => roots.has(id))
        .map((id) => ({ nodeId: id, attempt: 0, nodeType: graph.node(id)!.type })),
    };
  }

  // A flow of comments only: nothing executes, so the run completes in the
  // transaction that creates it (rare; the lock cost above does not matter here).
  return withTransaction(pool, async (client) => {
    const created = await create(client);
    if (!created.funded) return unfunded(created);
    const run: RunRow = {
      id: runId,
      organization_id: input.organizationId,
      kind: input.kind,
      agent_id: input.agentId,
      agent_version_id: input.agentVersionId,
      app_id: input.appId,
      status: 'in_progress',
      reserved_credits: input.estimatedCost,
      version: 0,
    };
    await advance(client, run, [], version, await versions.resultSpec(input.agentVersionId, input.appId), null);
    return {
      ...base,
      createdAt: created.created_at,
      completedAt: null,
      status: 'completed' as const,
      failureReason: null,
      error: null,
      currentNode: null,
      dispatch: [],
    };
  });
}
