import type { Db } from '@weft/db';
import { invalid } from '@weft/errors';
import { loadAgent, readableStoredAgent, type StoredAgent } from './get-agent';

/** What a run of an agent executes: the agent's active version, and what that run is estimated to cost. */
export interface AgentTarget {
  agentId: string;
  agentVersionId: string;
  estimatedCost: number;
}

/**
 * The target of a run of `agentId`, from the agent as the caller may see it
 * (readableStoredAgent): 422 at `body.agent_id` while it has no active version.
 */
export function agentTargetOf(stored: StoredAgent, agentId: string): AgentTarget {
  const versionId = stored.activeVersionId;
  if (!versionId || !stored.agent) {
    throw invalid(['body', 'agent_id'], 'Agent has no active version', 'no_active_version', agentId);
  }
  return { agentId, agentVersionId: versionId, estimatedCost: stored.agent.estimated_cost };
}

/** The target of a run of `agentId` by `orgId`, read from the database: 404 when the agent is not readable. */
export async function resolveAgentTarget(db: Db, orgId: string, agentId: string): Promise<AgentTarget> {
  const loaded = await loadAgent(db, agentId);
  return agentTargetOf(readableStoredAgent('value' in loaded ? loaded.value : undefined, orgId), agentId);
}
