import type { RunKindName } from '@weft/engine';
import type { Db, Page } from '@weft/db';
import { runsPage, type RunsPageInput } from '@weft/engine';
import type { RunKind, SummaryOf } from './run-kind';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Where the list statement puts the field naming what a run executes. */
const CATALOG_COLUMN = { agent_id: 'agentId', app_id: 'appId' } as const;

/** GET /runs and /app-runs: the organization's runs of `kind`, newest first. */
export function listRuns<K extends RunKindName>(
  kind: RunKind<K>,
  db: Db,
  orgId: string,
  input: RunsPageInput,
): Promise<Page<SummaryOf<K>>> {
  const column = CATALOG_COLUMN[kind.catalogField];
  return runsPage(
    db.pool,
    orgId,
    kind.name,
    input,
    (r) =>
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
