import type { FailureReason } from '@weft/contracts';
import type { Pool } from 'pg';
import type { Dispatch } from '@weft/dag';
import { commitUnderLock } from '../store/commit-under-lock';
import { writeRun, type CreatedRow, type PreparedRun, type StartRunInput } from '../store/create-runs';
import { uuidv7 } from '@weft/db';
import type { RunRow } from '../store/run-rows';
import { withTransaction } from '../store/tx';
import type { VersionCache } from '@weft/catalog';
import { RUN } from '@weft/dag';

export type { PreparedRun, StartRunInput } from '../store/create-runs';

export interface StartedRun {
  id: string;
  createdAt: Date;
  /** When it failed at creation (insufficient credits); null otherwise, also for a run completed at creation. */
  completedAt: Date | null;
  status: typeof RUN.inProgress | typeof RUN.failed | typeof RUN.completed;
  failureReason: FailureReason | null;
  error: string | null;
  currentNode: string | null;
  agentVersion: number;
  /** Nodes to enqueue now that the run is committed. */
  dispatch: Dispatch[];
  /** Whether the run has webhook targets: its start (and end, if it ended at once) was recorded for them. */
  hasWebhooks: boolean;
}

export async function prepareRun(versions: VersionCache, input: StartRunInput): Promise<PreparedRun> {
  const version = await versions.version(input.agentVersionId);
  const nodeIds = version.graph.nodeIds();
  const roots = new Set(version.graph.roots());
  return {
    input,
    id: uuidv7(),
    version,
    nodeIds,
    roots,
    firstRoot: nodeIds.find((id) => roots.has(id)),
    insufficient: `Insufficient credits: this run needs ${input.estimatedCost}`,
  };
}

/** The created run as the caller reports it. */
export function startedRun(run: PreparedRun, created: CreatedRow): StartedRun {
  const base = {
    id: run.id,
    agentVersion: run.version.version,
    createdAt: created.created_at,
    hasWebhooks: created.has_webhooks,
  };
  if (!created.funded) {
    return {
      ...base,
      completedAt: created.completed_at,
      status: RUN.failed,
      failureReason: 'insufficient_credits',
      error: run.insufficient,
      currentNode: null,
      dispatch: [],
    };
  }
  const graph = run.version.graph;
  return {
    ...base,
    completedAt: null,
    status: RUN.inProgress,
    failureReason: null,
    error: null,
    currentNode: run.firstRoot ? graph.node(run.firstRoot)!.type : null,
    dispatch: run.nodeIds
      .filter((id) => run.roots.has(id))
      .map((id) => ({ nodeId: id, attempt: 0, nodeType: graph.node(id)!.type })),
  };
}

/**
 * A flow of comments only: nothing executes, so the run completes in the
 * transaction that creates it (rare; the lock held across round trips does not matter here).
 */
export async function startEmptyRun(pool: Pool, versions: VersionCache, run: PreparedRun): Promise<StartedRun> {
  const { input } = run;
  return withTransaction(pool, async (client) => {
    const started = startedRun(run, await writeRun(pool, client, run));
    if (started.status !== RUN.inProgress) return started;
    const row: RunRow = {
      id: run.id,
      organization_id: input.organizationId,
      kind: input.kind,
      agent_id: input.agentId,
      agent_version_id: input.agentVersionId,
      app_id: input.appId,
      status: RUN.inProgress,
      reserved_credits: input.estimatedCost,
      version: 0,
      has_webhooks: started.hasWebhooks,
    };
    await commitUnderLock(
      client,
      row,
      [],
      run.version,
      await versions.resultSpec(input.agentVersionId, input.appId),
      null,
    );
    return { ...started, status: RUN.completed, currentNode: null, dispatch: [] };
  });
}
