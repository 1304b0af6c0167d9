import type { RunKindName } from '@weft/engine';
import { invalid } from '@weft/errors';
import { signingKeyring } from '../webhooks/webhooks';
import { checkRunInputs } from './check-run-inputs';
import { getRun } from './get-run';
import type { CreateBodyOf, RunDeps, RunKind, RunOf } from './run-kind';
import { startedRun } from './started-run';

/**
 * POST /runs and /app-runs. What the body names is resolved first (404 when
 * the caller cannot read it), then the inputs are checked against it; a
 * request refused so far claims nothing, its external_id included. Then the
 * engine writes the run, reserving credits, in one statement and enqueues.
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
  const target = await kind.resolve(deps, orgId, body);
  const issues = await checkRunInputs(deps.db, orgId, target.inputs, body.inputs);
  if (issues.length > 0) throw kind.rejectInputs(issues);

  const started = await deps.engine.startRun({
    organizationId: orgId,
    kind: kind.name,
    agentId: target.agentId,
    agentVersionId: target.agentVersionId,
    appId: target.appId,
    externalId: body.external_id,
    inputs: body.inputs,
    estimatedCost: target.estimatedCost,
    ...(body.webhook ? { webhook: { url: body.webhook, events: body.webhook_events_filter ?? ['completed'] } } : {}),
  });
  return (
    startedRun(kind, started, target.catalogId, body.external_id, body.inputs) ??
    getRun(kind, deps.db, deps.endedRuns, orgId, started.id)
  );
}
