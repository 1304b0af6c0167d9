import type { PendingReview, Run, RunInput, RunResult } from '@weft/contracts';
import type { Db } from '@weft/db';
import { NotFoundError } from '@weft/errors';
import type { EndedRunCache } from './ended-run-cache';
import type { RunKind, RunKindName, RunOf } from './run-kind';
import { runRecord, type SharedRunFields } from './run-record';
import { REVIEW, RUN } from '@weft/dag';

// GET /runs/{id} and /app-runs/{id}: the hottest read of the service (clients
// poll it). One named statement through the pg pool Prisma shares (a Prisma
// query costs about four times the CPU), pending reviews folded in, and only
// when the run waits for one.
const GET_RUN = {
  name: 'runs_get_run_v1',
  text: `SELECT r.id, r.agent_id, r.app_id, r.external_id, r.status, r.progress, r.current_node, r.created_at,
                r.started_at, r.completed_at, r.inputs, r.results, r.cost, r.error, r.failure_reason,
                r.awaiting_human_review, v.version,
                CASE WHEN r.awaiting_human_review THEN (
                  SELECT json_agg(json_build_object('id', rv.id, 'node_id', rv.node_id,
                                                    'proposed_output', rv.proposed_output) ORDER BY rv.created_at, rv.id)
                    FROM reviews rv WHERE rv.run_id = r.id AND rv.status = '${REVIEW.pending}') END AS pending_reviews
           FROM runs r JOIN agent_versions v ON v.id = r.agent_version_id
          WHERE r.id = $1 AND r.organization_id = $2 AND r.kind = $3::"RunKind"`,
};

interface Row {
  id: string;
  agent_id: string;
  app_id: string | null;
  external_id: string | null;
  status: Run['status'];
  progress: number;
  current_node: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  inputs: RunInput[];
  results: RunResult[] | null;
  cost: number | null;
  error: string | null;
  failure_reason: Run['failure_reason'];
  awaiting_human_review: boolean;
  version: number;
  pending_reviews: PendingReview[] | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The fields both kinds share (docs/api.md#run-states); current_node only while in progress. */
function sharedFields(row: Row): SharedRunFields {
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

/** A run of `kind` of `orgId`; 404 for runs of other organizations and of the other kind. */
export async function getRun<K extends RunKindName>(
  kind: RunKind<K>,
  db: Db,
  ended: EndedRunCache,
  orgId: string,
  runId: string,
): Promise<RunOf<K>> {
  const known = ended.get<RunOf<K>>(kind.name, orgId, runId);
  if (known) return known;
  const { rows } = await db.pool.query<Row>({ ...GET_RUN, values: [runId, orgId, kind.name] });
  const row = rows[0];
  if (!row) throw new NotFoundError('Run');
  const run = runRecord(kind, row.id, row[kind.catalogField]!, sharedFields(row), row.version);
  ended.offer(kind.name, orgId, runId, run);
  return run;
}
