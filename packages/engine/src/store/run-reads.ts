import { joinAgentVersion } from '@weft/catalog';
import type { PendingReview, Run, RunInput, RunResult, RunSummary } from '@weft/contracts';
import { REVIEW, RUN } from '@weft/dag';
import { pageOfRows, SqlValues, type Page, type PageStatement } from '@weft/db';
import type { Pool } from 'pg';

// The reads of runs the API serves: one run with its pending reviews (the
// hottest read of the service: clients poll it), the same with the node rows
// changed since a version (event streams), a page of an organization's runs,
// and the counts behind the cluster gauges. Named statements through the
// pg pool Prisma shares: a Prisma query costs about four times the CPU.

export type RunKindName = 'agent' | 'app';

export interface RunReadRow {
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

// Pending reviews are folded in, and only when the run waits for one.
export const RECORD_COLUMNS = `r.id, r.agent_id, r.app_id, r.external_id, r.status, r.progress, r.current_node, r.created_at,
                r.started_at, r.completed_at, r.inputs, r.results, r.cost, r.error, r.failure_reason,
                r.awaiting_human_review, v.version,
                CASE WHEN r.awaiting_human_review THEN (
                  SELECT json_agg(json_build_object('id', rv.id, 'node_id', rv.node_id,
                                                    'proposed_output', rv.proposed_output) ORDER BY rv.created_at, rv.id)
                    FROM reviews rv WHERE rv.run_id = r.id AND rv.status = '${REVIEW.pending}') END AS pending_reviews`;
export const RECORD_TABLES = `FROM runs r ${joinAgentVersion('v', 'r.agent_version_id')}`;
const RECORD_FROM = `${RECORD_TABLES}
          WHERE r.id = $1 AND r.organization_id = $2 AND r.kind = $3::"RunKind"`;

const READ_RUN = { name: 'runs_get_run_v1', text: `SELECT ${RECORD_COLUMNS}\n${RECORD_FROM}` };

/** A run of `kind` of `orgId`; undefined for runs of other organizations and of the other kind. */
export async function readRunRow(
  pool: Pool,
  orgId: string,
  runId: string,
  kind: RunKindName,
): Promise<RunReadRow | undefined> {
  const { rows } = await pool.query<RunReadRow>({ ...READ_RUN, values: [runId, orgId, kind] });
  return rows[0];
}

const READ_RUN_NODES = {
  name: 'runs_read_run_nodes_v1',
  text: `SELECT r.agent_version_id,
                (SELECT json_agg(json_build_object('node_id', n.node_id, 'status', n.status,
                                                   'started_at', n.started_at, 'completed_at', n.completed_at,
                                                   'cost', n.cost, 'error', n.error))
                   FROM node_executions n WHERE n.run_id = r.id) AS nodes
           FROM runs r WHERE r.id = $1 AND r.organization_id = $2 AND r.kind = $3::"RunKind"`,
};

/** A node's state as the run's graph shows it (a node without a row has not been reached: pending). */
export interface NodeStateRow {
  node_id: string;
  status: string;
  /** As json_build_object writes a timestamptz (ISO 8601 with an offset). */
  started_at: string | null;
  completed_at: string | null;
  cost: number;
  error: string | null;
}

/** The agent version a run of `kind` of `orgId` executes, and its node rows; undefined like readRunRow. */
export async function readRunNodes(
  pool: Pool,
  orgId: string,
  runId: string,
  kind: RunKindName,
): Promise<{ agentVersionId: string; nodes: NodeStateRow[] } | undefined> {
  const { rows } = await pool.query<{ agent_version_id: string; nodes: NodeStateRow[] | null }>({
    ...READ_RUN_NODES,
    values: [runId, orgId, kind],
  });
  const row = rows[0];
  return row && { agentVersionId: row.agent_version_id, nodes: row.nodes ?? [] };
}

/** A node row as a run's event stream reports it. */
export interface NodeChangeRow {
  node_id: string;
  type: string;
  status: string;
  /** As json_build_object writes a timestamptz (ISO 8601 with an offset). */
  started_at: string | null;
  completed_at: string | null;
  cost: number;
  error: string | null;
  /** The run version at the row's last change (node_executions.run_version). */
  run_version: number;
}

export interface RunChangesRow extends RunReadRow {
  /** runs.version: the version of the run this record is. */
  run_version: number;
  agent_version_id: string;
  /** The node rows changed at `sinceVersion` or later (none: null). */
  nodes: NodeChangeRow[] | null;
}

const READ_RUN_CHANGES = {
  name: 'runs_read_run_changes_v1',
  text: `SELECT ${RECORD_COLUMNS}, r.version AS run_version, r.agent_version_id,
                (SELECT json_agg(json_build_object('node_id', n.node_id, 'type', n.node_type, 'status', n.status,
                                                   'started_at', n.started_at, 'completed_at', n.completed_at,
                                                   'cost', n.cost, 'error', n.error, 'run_version', n.run_version))
                   FROM node_executions n WHERE n.run_id = r.id AND n.run_version >= $4) AS nodes
           ${RECORD_FROM}`,
};

/**
 * What a run's event stream sends: the record readRunRow reads, the run's
 * version, and its node rows changed at `sinceVersion` or later, all from one
 * statement, so of one moment of the run. Undefined like readRunRow.
 */
export async function readRunChanges(
  pool: Pool,
  orgId: string,
  runId: string,
  kind: RunKindName,
  sinceVersion: number,
): Promise<RunChangesRow | undefined> {
  const { rows } = await pool.query<RunChangesRow>({ ...READ_RUN_CHANGES, values: [runId, orgId, kind, sinceVersion] });
  return rows[0];
}

/** The current versions of the runs among `runIds` that exist (one indexed read, whatever their number). */
export async function runVersions(pool: Pool, runIds: string[]): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ id: string; version: number }>({
    name: 'runs_versions_v1',
    text: 'SELECT id, version FROM runs WHERE id = ANY($1::uuid[])',
    values: [runIds],
  });
  return new Map(rows.map((row) => [row.id, row.version]));
}

export interface RunsPageInput {
  limit: number;
  cursor?: string | undefined;
  status?: RunSummary['status'] | undefined;
  external_id?: string | undefined;
  /** Agent runs of this agent (ignored for app runs: theirs is `app_id`). */
  agent_id?: string | undefined;
  /** App runs of this app (ignored for agent runs). */
  app_id?: string | undefined;
  awaiting_human_review?: boolean | undefined;
}

export interface RunSummaryRow {
  id: string;
  agentId: string;
  appId: string | null;
  externalId: string | null;
  status: RunSummary['status'];
  progress: number;
  awaitingHumanReview: boolean;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  cost: number | null;
}

const SUMMARY = `r.id, r.agent_id AS "agentId", r.app_id AS "appId", r.external_id AS "externalId", r.status,
  r.progress, r.awaiting_human_review AS "awaitingHumanReview", r.created_at AS "createdAt",
  r.started_at AS "startedAt", r.completed_at AS "completedAt", r.cost`;

/**
 * The organization's runs of one kind, newest first, filtered. Each list has
 * its index on (…, created_at DESC, id DESC): the organization's runs of the
 * kind, of one agent (runs_agent_runs_idx) or app (runs_app_runs_idx), or
 * parked on a review (runs_awaiting_review_idx). The kind and the review
 * filter are written into the text rather than passed as values: PostgreSQL
 * uses a partial index only when the statement's text implies its predicate,
 * which a placeholder never does once the plan is generic.
 */
export function runsPage<T>(
  pool: Pool,
  orgId: string,
  kind: RunKindName,
  input: RunsPageInput,
  map: (row: RunSummaryRow) => T,
): Promise<Page<T>> {
  const values = new SqlValues();
  const where = [`r.organization_id = ${values.add(orgId)}`, `r.kind = '${kind}'`];
  const catalogId = kind === 'agent' ? input.agent_id : input.app_id;
  if (catalogId !== undefined) where.push(`r.${kind}_id = ${values.add(catalogId)}`);
  if (input.awaiting_human_review !== undefined) {
    where.push(input.awaiting_human_review ? 'r.awaiting_human_review' : 'NOT r.awaiting_human_review');
  }
  if (input.status) where.push(`r.status = ${values.add(input.status)}::"RunStatus"`);
  if (input.external_id !== undefined) where.push(`r.external_id = ${values.add(input.external_id)}`);
  const statement: PageStatement = { select: SUMMARY, from: 'runs r', alias: 'r', where, values };
  return pageOfRows(pool, input, statement, map);
}

export interface RunCounts {
  in_progress: number;
  awaiting_review: number;
  stalled: number;
}

/** Runs in progress, waiting for a review, and not moved for `stalledAfterMs`: one indexed count (runs(status, updated_at)). */
export async function countRuns(pool: Pool, stalledAfterMs: number): Promise<RunCounts> {
  const { rows } = await pool.query<RunCounts>({
    name: 'metrics_run_counts_v1',
    text: `SELECT count(*)::int AS in_progress,
                  count(*) FILTER (WHERE awaiting_human_review)::int AS awaiting_review,
                  count(*) FILTER (WHERE NOT awaiting_human_review
                                     AND updated_at < now() - make_interval(secs => $1::float8 / 1000))::int AS stalled
             FROM runs WHERE status = '${RUN.inProgress}'`,
    values: [stalledAfterMs],
  });
  return rows[0] ?? { in_progress: 0, awaiting_review: 0, stalled: 0 };
}
