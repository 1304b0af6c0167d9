import type { Agent, AgentInput, AgentOutput } from '@weft/contracts';
import type { Db } from '@weft/db';
import { NotFoundError, invalid } from '@weft/errors';

// The hottest catalog read. The row is loaded in one statement, one round trip,
// through the pg pool Prisma shares (an un-batched Prisma query costs ~4x the
// CPU of raw `pg`), without an access filter, so that one cached row (the
// gateway's agent cache) serves every caller; access is decided by
// `readableAgent`.
const LOAD_AGENT = {
  name: 'catalog_load_agent_v2',
  text: `SELECT a.id, a.organization_id, a.name, a.description, a.tags, a.visibility, a.estimated_cost,
                a.active_version_id, v.version, v.inputs, v.outputs, v.has_human_review
           FROM agents a
           LEFT JOIN agent_versions v ON v.id = a.active_version_id
          WHERE a.id = $1`,
};

interface Row {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  tags: string[] | null;
  visibility: Agent['visibility'] & string;
  estimated_cost: number;
  active_version_id: string | null;
  version: number | null;
  inputs: AgentInput[] | null;
  outputs: AgentOutput[] | null;
  has_human_review: boolean | null;
}

/** An agent as stored, with what access decisions need. `agent` is null while it has no active version. */
export interface StoredAgent {
  organizationId: string;
  visibility: string;
  /** The version a run created now is pinned to (null while there is none). */
  activeVersionId: string | null;
  agent: Agent | null;
}

/** What loadAgent found; a missing agent may be created later, so a cache keeps its absence only briefly. */
export type LoadedAgent = { value: StoredAgent } | { missing: 'for-now' };

export async function loadAgent(db: Db, agentId: string): Promise<LoadedAgent> {
  const { rows } = await db.pool.query<Row>({ ...LOAD_AGENT, values: [agentId] });
  const row = rows[0];
  if (!row) return { missing: 'for-now' };
  return {
    value: {
      organizationId: row.organization_id,
      visibility: row.visibility,
      activeVersionId: row.version === null ? null : row.active_version_id,
      agent:
        row.version === null
          ? null
          : {
              id: row.id,
              name: row.name,
              description: row.description,
              tags: row.tags ?? [],
              inputs: row.inputs ?? [],
              outputs: row.outputs ?? [],
              estimated_cost: row.estimated_cost,
              has_human_review: row.has_human_review ?? false,
              visibility: row.visibility,
              version: row.version,
            },
    },
  };
}

/**
 * The owner sees every visibility; anyone authenticated sees shared and public
 * agents; everything else is a 404 indistinguishable from a missing agent.
 */
export function readableStoredAgent(stored: StoredAgent | undefined, orgId: string): StoredAgent {
  if (
    !stored ||
    (stored.organizationId !== orgId && stored.visibility !== 'shared' && stored.visibility !== 'public')
  ) {
    throw new NotFoundError('Agent');
  }
  return stored;
}

/** The agent as `orgId` may see it (see readableStoredAgent); 422 while it has no active version. */
export function readableAgent(stored: StoredAgent | undefined, orgId: string, agentId: string): Agent {
  const { agent } = readableStoredAgent(stored, orgId);
  if (!agent) {
    throw invalid(['path', 'agent_id'], 'Agent has no active version', 'no_active_version', agentId);
  }
  return agent;
}
