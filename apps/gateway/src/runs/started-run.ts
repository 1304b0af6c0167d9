import type { RunKindName } from '@weft/engine';
import type { RunInput } from '@weft/contracts';
import type { StartedRun } from '@weft/engine';
import type { RunKind, RunOf } from './run-kind';
import { runRecord } from './run-record';
import { RUN } from '@weft/dag';

/**
 * The record a create answers with, from what the create statement returned:
 * no second read. A run completed at creation (a flow of comments only) has
 * results to show and is read back instead (`undefined` here).
 */
export function startedRun<K extends RunKindName>(
  kind: RunKind<K>,
  started: StartedRun,
  catalogId: string,
  externalId: string | undefined,
  inputs: RunInput[],
): RunOf<K> | undefined {
  if (started.status === RUN.completed) return undefined;
  const fields = {
    external_id: externalId ?? null,
    status: started.status,
    progress: 0,
    ...(started.status === RUN.inProgress ? { current_node: started.currentNode } : {}),
    created_at: started.createdAt.toISOString(),
    started_at: null,
    completed_at: started.completedAt ? started.completedAt.toISOString() : null,
    inputs,
    results: [],
    cost: started.status === 'failed' ? 0 : null,
    error: started.error,
    failure_reason: started.failureReason,
    awaiting_human_review: false,
    pending_reviews: [],
  };
  return runRecord(kind, started.id, catalogId, fields, started.agentVersion);
}
