import type { FailureReason, RunInput } from '@weft/contracts';
import { ExternalIdConflictError } from '@weft/errors';
import type { Pool } from 'pg';
import { advance, type Dispatch } from './advance';
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
  status: 'in_progress' | 'failed' | 'completed';
  failureReason: FailureReason | null;
  error: string | null;
  currentNode: string | null;
  agentVersion: number;
  /** Nodes to enqueue now that the run is committed. */
  dispatch: Dispatch[];
}

/**
 * One transaction claims the external_id (the unique index decides between
 * concurrent creates), reserves the estimated cost with a guarded UPDATE and
 * its ledger line, and writes the run and its node rows, roots already
 * dispatched. The caller enqueues `dispatch` after the commit.
 */
export async function startRun(pool: Pool, versions: VersionCache, input: StartRunInput): Promise<StartedRun> {
  const version = await versions.version(input.agentVersionId);
  const graph = version.graph;
  const ids = graph.nodeIds();
  const roots = new Set(graph.roots());
  const firstRoot = ids.find((id) => roots.has(id));
  const runId = uuidv7();

  return withTransaction(pool, async (client) => {
    const inserted = await client.query<{ created_at: Date }>({
      name: 'engine_insert_run_v1',
      text: `INSERT INTO runs (id, organization_id, kind, agent_id, agent_version_id, app_id, external_id, inputs,
                               reserved_credits, current_node, created_at, updated_at)
             VALUES ($1, $2, $3::"RunKind", $4, $5, $6, $7, $8, $9, $10, now(), now())
             ON CONFLICT (organization_id, external_id) DO NOTHING
             RETURNING created_at`,
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
      ],
    });
    const createdAt = inserted.rows[0]?.created_at;
    if (!createdAt) {
      const existing = await client.query<{ id: string }>(
        'SELECT id FROM runs WHERE organization_id = $1 AND external_id = $2',
        [input.organizationId, input.externalId],
      );
      throw new ExternalIdConflictError(existing.rows[0]?.id ?? runId);
    }
    const base = { id: runId, createdAt, agentVersion: version.version };

    await client.query({
      name: 'engine_insert_nodes_v1',
      text: `INSERT INTO node_executions (id, run_id, node_id, node_type, status, started_at)
             SELECT t.id, $2::uuid, t.node_id, t.node_type, t.status, CASE WHEN t.status = 'running' THEN now() END
               FROM unnest($1::uuid[], $3::text[], $4::text[], $5::"NodeStatus"[]) AS t(id, node_id, node_type, status)`,
      values: [
        ids.map(() => uuidv7()),
        runId,
        ids,
        ids.map((id) => graph.node(id)!.type),
        ids.map((id) => (roots.has(id) ? 'running' : 'pending')),
      ],
    });

    // The reservation comes last: every run of an organization updates its one
    // row, whose lock is held until COMMIT, so the less follows it the better.
    // One statement reserves and writes the ledger line.
    if (input.estimatedCost > 0) {
      const reserved = await client.query({
        name: 'engine_reserve_credits_v2',
        text: `WITH reserved AS (
                 UPDATE organizations SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING id
               )
               INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
               SELECT $3, id, $4, 'reserve', -$2::int, 'estimated cost reserved' FROM reserved`,
        values: [input.organizationId, input.estimatedCost, uuidv7(), runId],
      });
      if (reserved.rowCount === 0) {
        // extensions.md 6: the run exists (its external_id stays claimed) and has failed at once.
        const error = `Insufficient credits: this run needs ${input.estimatedCost}`;
        await client.query({
          name: 'engine_drop_unfunded_nodes_v1',
          text: 'DELETE FROM node_executions WHERE run_id = $1',
          values: [runId],
        });
        await client.query({
          name: 'engine_fail_unfunded_run_v1',
          text: `UPDATE runs SET status = 'failed', failure_reason = 'insufficient_credits', error = $2,
                        reserved_credits = 0, cost = 0, current_node = NULL, completed_at = now()
                  WHERE id = $1`,
          values: [runId, error],
        });
        return {
          ...base,
          status: 'failed',
          failureReason: 'insufficient_credits',
          error,
          currentNode: null,
          dispatch: [],
        };
      }
    }

    if (ids.length === 0) {
      // A flow of comments only: nothing executes, the run is complete at once.
      const run: RunRow = {
        id: runId,
        organization_id: input.organizationId,
        kind: input.kind,
        agent_id: input.agentId,
        agent_version_id: input.agentVersionId,
        app_id: input.appId,
        status: 'in_progress',
        reserved_credits: input.estimatedCost,
      };
      await advance(client, run, [], version, await versions.resultSpec(input.agentVersionId, input.appId), null);
      return { ...base, status: 'completed', failureReason: null, error: null, currentNode: null, dispatch: [] };
    }

    const dispatch = ids
      .filter((id) => roots.has(id))
      .map((id) => ({ nodeId: id, attempt: 0, nodeType: graph.node(id)!.type }));
    return {
      ...base,
      status: 'in_progress',
      failureReason: null,
      error: null,
      currentNode: firstRoot ? graph.node(firstRoot)!.type : null,
      dispatch,
    };
  });
}
