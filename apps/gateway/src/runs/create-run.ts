import type { RunKindName } from '@weft/engine';
import { invalid } from '@weft/errors';
import { signingKeyring } from '../webhooks/webhooks';
import { getRun } from './get-run';
import type { CreateBodyOf, RunDeps, RunKind, RunOf } from './run-kind';
import { startedRun } from './started-run';

/**
 * POST /runs and /app-runs. What HTTP alone decides is refused first; then
 * the engine resolves what the body names, checks the inputs against it and
 * writes the run (engine.createRun), and the record is answered from what the
 * create returned.
 */
export async function createRun<K extends RunKindName>(
  kind: RunKind<K>,
  deps: RunDeps,
  orgId: string,
  body: CreateBodyOf<K>,
): Promise<RunOf<K>> {
  if (body.webhook_events_filter && !body.webhook) {
    throw invalid(['body', 'webhook_events_filter'], 'webhook_events_filter is only taken with a webhook');
  }
  // Refused (503) before anything is created when this deployment could not sign the run's webhooks.
  if (body.webhook) signingKeyring(deps);
  const created = await deps.engine.createRun({
    organizationId: orgId,
    kind: kind.name,
    catalogId: catalogIdOf(body),
    externalId: body.external_id,
    inputs: body.inputs,
    ...(body.webhook ? { webhook: { url: body.webhook, events: body.webhook_events_filter ?? ['completed'] } } : {}),
  });
  return (
    startedRun(kind, created, created.catalogId, body.external_id, body.inputs) ??
    getRun(kind, deps.db, deps.endedRuns, orgId, created.id)
  );
}

/** The agent or app the body names, in its kind's field (`agent_id` or `app_id`). */
function catalogIdOf(body: { agent_id: string } | { app_id: string }): string {
  return 'agent_id' in body ? body.agent_id : body.app_id;
}
