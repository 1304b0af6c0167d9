import {
  agentTargetOf,
  loadAgent,
  readableStoredAgent,
  resolveAppTarget,
  type StoredAgent,
  type VersionCache,
} from '@weft/catalog';
import type { Db } from '@weft/db';
import { agentInputs } from '@weft/dag';
import type { RunKindName } from '../store/run-reads';
import { agentInputSpecs, appInputSpecs, type InputSpec } from './input-specs';

/** Where a create reads agents: the gateway passes its cache, which every instance empties of a changed agent. */
export interface AgentSource {
  /** The stored agent as `orgId` may see it, with its active version id: 404 when not readable. */
  stored(orgId: string, agentId: string): Promise<StoredAgent>;
}

/** Agents read from the database at each create: for engines built without the gateway's cache (tests). */
export function catalogAgents(db: Db): AgentSource {
  return {
    async stored(orgId, agentId) {
      const loaded = await loadAgent(db, agentId);
      return readableStoredAgent('value' in loaded ? loaded.value : undefined, orgId);
    },
  };
}

/** What a create runs, resolved from the catalog before anything is written. */
export interface RunTarget {
  agentId: string;
  agentVersionId: string;
  appId: string | null;
  estimatedCost: number;
  inputs: InputSpec[];
}

export interface TargetSources {
  db: Db;
  agents: AgentSource;
  versions: VersionCache;
}

/**
 * The agent version a create of `kind` runs, from what the body names
 * (`catalogId`): 404 when the caller cannot read it, 4xx without an active version.
 */
export function resolveTarget(
  sources: TargetSources,
  kind: RunKindName,
  orgId: string,
  catalogId: string,
): Promise<RunTarget> {
  return kind === 'agent' ? resolveAgent(sources, orgId, catalogId) : resolveApp(sources, orgId, catalogId);
}

/**
 * The agent must be readable by the caller (own, shared or public) and have
 * an active version. A create racing a publish is pinned to either version.
 */
async function resolveAgent({ agents, versions }: TargetSources, orgId: string, agentId: string): Promise<RunTarget> {
  const target = agentTargetOf(await agents.stored(orgId, agentId), agentId);
  const { graph } = await versions.version(target.agentVersionId);
  return { ...target, appId: null, inputs: agentInputSpecs(agentInputs(graph.flow)) };
}

/** The app must be readable by the caller (own, shared or public); its inputs follow the app's own definitions. */
async function resolveApp({ db }: TargetSources, orgId: string, appId: string): Promise<RunTarget> {
  const target = await resolveAppTarget(db, orgId, appId);
  return { ...target, inputs: appInputSpecs(target.inputs) };
}
