import type { CreateRunBody, Run, z } from '@weft/contracts';
import { agentInputs } from '@weft/dag';
import type { Db } from '@weft/db';
import type { Engine } from '@weft/engine';
import { invalid, NotFoundError, ValidationError } from '@weft/errors';
import { checkRunInputs } from './check-run-inputs';
import type { EndedRunCache } from './ended-run-cache';
import { getRun } from './get-run';
import { startedAgentRun } from './started-run';
import { agentInputSpecs } from './input-specs';

export type CreateRunInput = z.output<typeof CreateRunBody>;

/**
 * POST /runs. The agent must be readable by the caller (own, shared or
 * public: 404 otherwise) and have an active version, which the run is pinned
 * to. Input problems are 422 (interface.md 2.14) and claim nothing; then the
 * engine writes the run, reserving credits, in one transaction and enqueues.
 */
export async function createAgentRun(
  db: Db,
  engine: Engine,
  endedRuns: EndedRunCache,
  orgId: string,
  body: CreateRunInput,
): Promise<Run> {
  const { rows } = await db.pool.query<{ estimated_cost: number; active_version_id: string | null }>({
    name: 'runs_agent_for_run_v1',
    text: `SELECT estimated_cost, active_version_id FROM agents
            WHERE id = $1 AND (organization_id = $2 OR visibility IN ('shared', 'public'))`,
    values: [body.agent_id, orgId],
  });
  const agent = rows[0];
  if (!agent) throw new NotFoundError('Agent');
  if (!agent.active_version_id) {
    throw invalid(['body', 'agent_id'], 'Agent has no active version', 'no_active_version', body.agent_id);
  }
  const { graph } = await engine.versions.version(agent.active_version_id);
  const issues = await checkRunInputs(db, orgId, agentInputSpecs(agentInputs(graph.flow)), body.inputs);
  if (issues.length > 0) throw new ValidationError(issues);

  const started = await engine.startRun({
    organizationId: orgId,
    kind: 'agent',
    agentId: body.agent_id,
    agentVersionId: agent.active_version_id,
    appId: null,
    externalId: body.external_id,
    inputs: body.inputs,
    estimatedCost: agent.estimated_cost,
  });
  return (
    startedAgentRun(started, body.agent_id, body.external_id, body.inputs) ?? getRun(db, endedRuns, orgId, started.id)
  );
}
