import type { RunInput, WebhookEvent } from '@weft/contracts';
import { BadRequestError, ValidationError, type ValidationIssue } from '@weft/errors';
import type { RunKindName } from '../store/run-reads';
import { checkRunInputs } from './check-run-inputs';
import { resolveTarget, type TargetSources } from './resolve-target';
import type { StartedRun, StartRunInput } from './start-run';

export interface CreateRunInput {
  organizationId: string;
  kind: RunKindName;
  /** The agent (kind `agent`) or app (kind `app`) the request names. */
  catalogId: string;
  externalId: string | undefined;
  /** As given by the caller: checked here against the target's input definitions. */
  inputs: RunInput[];
  webhook?: { url: string; events: WebhookEvent[] } | undefined;
}

/** The started run, with what it was resolved to run. */
export interface CreatedRun extends StartedRun {
  catalogId: string;
  agentId: string;
  agentVersionId: string;
  appId: string | null;
}

/**
 * A run of what the request names. That target is resolved first (404 when
 * the caller cannot read it), then the inputs are checked against it; a
 * request refused so far claims nothing, its external_id included. Then
 * `startRun` writes the run, reserving credits, and dispatches it.
 */
export async function createRun(
  sources: TargetSources,
  startRun: (input: StartRunInput) => Promise<StartedRun>,
  input: CreateRunInput,
): Promise<CreatedRun> {
  const { organizationId, kind, catalogId } = input;
  const target = await resolveTarget(sources, kind, organizationId, catalogId);
  const issues = await checkRunInputs(sources.db, organizationId, target.inputs, input.inputs);
  if (issues.length > 0) throw inputsRefused(kind, issues);

  const started = await startRun({
    organizationId,
    kind,
    agentId: target.agentId,
    agentVersionId: target.agentVersionId,
    appId: target.appId,
    externalId: input.externalId,
    inputs: input.inputs,
    estimatedCost: target.estimatedCost,
    webhook: input.webhook,
  });
  return {
    ...started,
    catalogId,
    agentId: target.agentId,
    agentVersionId: target.agentVersionId,
    appId: target.appId,
  };
}

/** Agent runs refuse inputs as 422 naming each issue where it is; app runs as one 400 listing them. */
function inputsRefused(kind: RunKindName, issues: ValidationIssue[]): Error {
  return kind === 'agent'
    ? new ValidationError(issues)
    : new BadRequestError(`Invalid inputs: ${issues.map((i) => i.msg).join('; ')}`);
}
