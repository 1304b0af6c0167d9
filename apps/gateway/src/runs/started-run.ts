import type { AppRun, Run, RunInput } from '@weft/contracts';
import type { StartedRun } from '@weft/engine';

/**
 * The record a create answers with, from what the create statement returned:
 * no second read. A run completed at creation (a flow of comments only) has
 * results to show and is read back instead (`undefined` here).
 */
function startedFields(started: StartedRun, externalId: string | undefined, inputs: RunInput[]) {
  if (started.status === 'completed') return undefined;
  return {
    external_id: externalId ?? null,
    status: started.status,
    progress: 0,
    ...(started.status === 'in_progress' ? { current_node: started.currentNode } : {}),
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
}

export function startedAgentRun(
  started: StartedRun,
  agentId: string,
  externalId: string | undefined,
  inputs: RunInput[],
): Run | undefined {
  const fields = startedFields(started, externalId, inputs);
  return fields && { id: started.id, agent_id: agentId, ...fields, agent_version: started.agentVersion };
}

export function startedAppRun(
  started: StartedRun,
  appId: string,
  externalId: string | undefined,
  inputs: RunInput[],
): AppRun | undefined {
  const fields = startedFields(started, externalId, inputs);
  return fields && { id: started.id, app_id: appId, ...fields };
}
