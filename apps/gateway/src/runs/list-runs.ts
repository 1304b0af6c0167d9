import type { AppRunSummary, RunSummary } from '@weft/contracts';
import { paginate, type Db, type KeysetQuery, type Page } from '@weft/db';

export interface ListRunsInput {
  limit: number;
  cursor?: string | undefined;
  status?: RunSummary['status'] | undefined;
  external_id?: string | undefined;
}

const SUMMARY = {
  id: true,
  agentId: true,
  appId: true,
  externalId: true,
  status: true,
  progress: true,
  awaitingHumanReview: true,
  createdAt: true,
  startedAt: true,
  completedAt: true,
  cost: true,
} as const;

function fetchPage(db: Db, orgId: string, kind: 'agent' | 'app', input: ListRunsInput) {
  return (keyset: KeysetQuery) =>
    db.prisma.run.findMany({
      where: {
        AND: [
          { organizationId: orgId, kind },
          input.status ? { status: input.status } : {},
          input.external_id !== undefined ? { externalId: input.external_id } : {},
          keyset.where,
        ],
      },
      orderBy: keyset.orderBy,
      take: keyset.take,
      select: SUMMARY,
    });
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** GET /runs: the organization's agent runs, newest first (index organization_id, kind, created_at, id). */
export function listRuns(db: Db, orgId: string, input: ListRunsInput): Promise<Page<RunSummary>> {
  return paginate(input, fetchPage(db, orgId, 'agent', input), (r) => ({
    id: r.id,
    agent_id: r.agentId,
    external_id: r.externalId,
    status: r.status,
    progress: r.progress,
    awaiting_human_review: r.awaitingHumanReview,
    created_at: r.createdAt.toISOString(),
    started_at: iso(r.startedAt),
    completed_at: iso(r.completedAt),
    cost: r.cost,
  }));
}

/** GET /app-runs: the organization's app runs, newest first. */
export function listAppRuns(db: Db, orgId: string, input: ListRunsInput): Promise<Page<AppRunSummary>> {
  return paginate(input, fetchPage(db, orgId, 'app', input), (r) => ({
    id: r.id,
    app_id: r.appId!,
    external_id: r.externalId,
    status: r.status,
    progress: r.progress,
    created_at: r.createdAt.toISOString(),
    started_at: iso(r.startedAt),
    completed_at: iso(r.completedAt),
    cost: r.cost,
  }));
}
