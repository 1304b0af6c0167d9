import type { CreateRunBody, Run, z } from '@weft/contracts';
import { agentInputs } from '@weft/dag';
import type { Db } from '@weft/db';
import type { Engine } from '@weft/engine';
import { invalid, ValidationError } from '@weft/errors';
import type { AgentCatalog } from '../catalog/agent-catalog';
import { checkRunInputs } from './check-run-inputs';
import type { EndedRunCache } from './ended-run-cache';
import { getRun } from './get-run';
import { startedAgentRun } from './started-run';
import { agentInputSpecs } from './input-specs';

export type CreateRunInput = z.output<typeof CreateRunBody>;

/**
 * POST /runs. The agent must be readable by the caller (own, shared or
 * public: 404 otherwise) and have an active version, which the run is pinned
 * to. The agent comes from the catalog cache, which every instance empties
 * of an agent as soon as a new version is published (agent-catalog.ts): a
 * create racing a publish is pinned to either version. Input problems are
 * 422 (interface.md 2.14) and claim nothing; then the engine writes the run,
 * reserving credits, in one statement and enqueues.
 */
export async function createAgentRun(
  db: Db,
  engine: Engine,
  agents: AgentCatalog,
  endedRuns: EndedRunCache,
  orgId: string,
  body: CreateRunInput,
): Promise<Run> {
  const stored = await agents.stored(orgId, body.agent_id);
  const versionId = stored.activeVersionId;
  if (!versionId || !stored.agent) {
    throw invalid(['body', 'agent_id'], 'Agent has no active version', 'no_active_version', body.agent_id);
  }
  const { graph } = await engine.versions.version(versionId);
  const issues = await checkRunInputs(db, orgId, agentInputSpecs(agentInputs(graph.flow)), body.inputs);
  if (issues.length > 0) throw new ValidationError(issues);

  const started = await engine.startRun({
    organizationId: orgId,
    kind: 'agent',
    agentId: body.agent_id,
    agentVersionId: versionId,
    appId: null,
    externalId: body.external_id,
    inputs: body.inputs,
    estimatedCost: stored.agent.estimated_cost,
  });
  return (
    startedAgentRun(started, body.agent_id, body.external_id, body.inputs) ?? getRun(db, endedRuns, orgId, started.id)
  );
}
