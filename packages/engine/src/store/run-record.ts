import type { AppRun, Run } from '@weft/contracts';
import { RUN } from '@weft/dag';
import type { Pool } from 'pg';
import { RECORD_COLUMNS, RECORD_TABLES, type RunKindName, type RunReadRow } from './run-reads';

// A run's record as the API shows it (GET /runs/{id}, GET /app-runs/{id}),
// built in one place for the gateway's answers and the webhooks' bodies.

/** The fields of a run record both kinds show, in the order records show them. */
export type SharedRunFields = Omit<Run, 'id' | 'agent_id' | 'agent_version'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The fields both kinds share (docs/api.md#run-states); current_node only while in progress. */
export function sharedRunFields(row: RunReadRow): SharedRunFields {
  return {
    external_id: row.external_id,
    status: row.status,
    progress: row.progress,
    ...(row.status === RUN.inProgress ? { current_node: row.current_node } : {}),
    created_at: row.created_at.toISOString(),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    inputs: row.inputs,
    results: row.results ?? [],
    cost: row.cost,
    error: row.error,
    failure_reason: row.failure_reason,
    awaiting_human_review: row.awaiting_human_review,
    pending_reviews: row.pending_reviews ?? [],
  };
}

/** A run's record as its kind shows it: id, what it executes, the shared fields, and for agent runs the version. */
export function runRecord(
  kind: RunKindName,
  id: string,
  catalogId: string,
  fields: SharedRunFields,
  agentVersion: number,
): Run | AppRun {
  return kind === 'agent'
    ? { id, agent_id: catalogId, ...fields, agent_version: agentVersion }
    : { id, app_id: catalogId, ...fields };
}

const READ_ANY_KIND = {
  name: 'runs_get_run_records_v1',
  text: `SELECT r.kind, r.organization_id, ${RECORD_COLUMNS} ${RECORD_TABLES}
           JOIN unnest($1::uuid[], $2::uuid[]) AS wanted(id, organization_id)
             ON r.id = wanted.id AND r.organization_id = wanted.organization_id`,
};

export interface RunRef {
  organizationId: string;
  runId: string;
}

/**
 * The records of runs of either kind, one statement for them all, in the
 * order asked (undefined where the organization has no such run).
 */
export async function readRunRecords(pool: Pool, refs: readonly RunRef[]): Promise<(Run | AppRun | undefined)[]> {
  // Deliveries of one event to many receivers ask for the same run: each is read once.
  const unique = [...new Map(refs.map((r) => [`${r.organizationId} ${r.runId}`, r])).values()];
  const { rows } = await pool.query<RunReadRow & { kind: RunKindName; organization_id: string }>({
    ...READ_ANY_KIND,
    values: [unique.map((r) => r.runId), unique.map((r) => r.organizationId)],
  });
  const found = new Map(
    rows.map((row) => {
      const catalogId = row.kind === 'agent' ? row.agent_id : row.app_id!;
      const record = runRecord(row.kind, row.id, catalogId, sharedRunFields(row), row.version);
      return [`${row.organization_id} ${row.id}`, record] as const;
    }),
  );
  return refs.map((r) => found.get(`${r.organizationId} ${r.runId}`));
}
