import type { Agent, AgentInput, AgentOutput } from '@weft/contracts';
import type { Db } from '@weft/db';
import { NotFoundError, invalid } from '@weft/errors';

// The hottest catalog read: one statement, one round trip, through the pg pool
// Prisma shares (an un-batched Prisma query costs ~4x the CPU of raw `pg`; see
// shared/design/performance-facts.md). Named, so each connection parses and
// plans it once. Access rule: the owner sees every visibility; anyone
// authenticated sees shared and public agents; everything else is a 404
// indistinguishable from a missing agent.
const GET_AGENT = {
  name: 'catalog_get_agent_v1',
  text: `SELECT a.id, a.name, a.description, a.tags, a.visibility, a.estimated_cost,
                v.version, v.inputs, v.outputs, v.has_human_review
           FROM agents a
           LEFT JOIN agent_versions v ON v.id = a.active_version_id
          WHERE a.id = $1 AND (a.organization_id = $2 OR a.visibility IN ('shared', 'public'))`,
};

interface Row {
  id: string;
  name: string;
  description: string;
  tags: string[] | null;
  visibility: Agent['visibility'] & string;
  estimated_cost: number;
  version: number | null;
  inputs: AgentInput[] | null;
  outputs: AgentOutput[] | null;
  has_human_review: boolean | null;
}

export async function getAgent(db: Db, orgId: string, agentId: string): Promise<Agent> {
  const { rows } = await db.pool.query<Row>({ ...GET_AGENT, values: [agentId, orgId] });
  const row = rows[0];
  if (!row) throw new NotFoundError('Agent');
  if (row.version === null) {
    throw invalid(['path', 'agent_id'], 'Agent has no active version', 'no_active_version', agentId);
  }
  return {
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
  };
}
