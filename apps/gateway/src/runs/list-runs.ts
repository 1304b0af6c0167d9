import type { RunSummary } from '@weft/contracts';
import { pageOfRows, SqlValues, type Db, type Page, type PageStatement } from '@weft/db';
import type { RunKind, RunKindName, SummaryOf } from './run-kind';

export interface ListRunsInput {
  limit: number;
  cursor?: string | undefined;
  status?: RunSummary['status'] | undefined;
  external_id?: string | undefined;
}

interface SummaryRow {
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

const SELECT = `r.id, r.agent_id AS "agentId", r.app_id AS "appId", r.external_id AS "externalId", r.status,
  r.progress, r.awaiting_human_review AS "awaitingHumanReview", r.created_at AS "createdAt",
  r.started_at AS "startedAt", r.completed_at AS "completedAt", r.cost`;

/** The organization's runs of one kind (index organization_id, kind, created_at, id), filtered. */
function statement(orgId: string, kind: RunKindName, input: ListRunsInput): PageStatement {
  const values = new SqlValues();
  const where = [`r.organization_id = ${values.add(orgId)}`, `r.kind = '${kind}'`];
  if (input.status) where.push(`r.status = ${values.add(input.status)}::"RunStatus"`);
  if (input.external_id !== undefined) where.push(`r.external_id = ${values.add(input.external_id)}`);
  return { select: SELECT, from: 'runs r', alias: 'r', where, values };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Where the list statement puts the field naming what a run executes. */
const CATALOG_COLUMN = { agent_id: 'agentId', app_id: 'appId' } as const;

/** GET /runs and /app-runs: the organization's runs of `kind`, newest first. */
export function listRuns<K extends RunKindName>(
  kind: RunKind<K>,
  db: Db,
  orgId: string,
  input: ListRunsInput,
): Promise<Page<SummaryOf<K>>> {
  const column = CATALOG_COLUMN[kind.catalogField];
  return pageOfRows(
    db.pool,
    input,
    statement(orgId, kind.name, input),
    (r: SummaryRow) =>
      ({
        id: r.id,
        [kind.catalogField]: r[column],
        external_id: r.externalId,
        status: r.status,
        progress: r.progress,
        ...(kind.listsReviewWait ? { awaiting_human_review: r.awaitingHumanReview } : {}),
        created_at: r.createdAt.toISOString(),
        started_at: iso(r.startedAt),
        completed_at: iso(r.completedAt),
        cost: r.cost,
      }) as SummaryOf<K>,
  );
}
