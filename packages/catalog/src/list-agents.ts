import type { AgentSummary, FlowVisibilitySchema, z } from '@weft/contracts';
import { pageOfRows, SqlValues, type Db, type Page } from '@weft/db';
import { agentListScope } from './access';
import { escapeLike } from './like';
import { toAgentSummary, type AgentSummaryRow } from './mappers';

export interface ListAgentsInput {
  limit: number;
  cursor?: string;
  /** Every tag must be present (AND), like the combined asset filters (docs/api.md#assets). */
  tags?: string[];
  visibility?: z.infer<typeof FlowVisibilitySchema>[];
  search?: string;
  owned: boolean;
}

// The summary's inputs and has_human_review live on the active version: joined
// in the same statement, one per page.
const SELECT = `a.id, a.name, a.description, a.tags, a.visibility, a.estimated_cost AS "estimatedCost",
  a.created_at AS "createdAt", v.inputs, v.has_human_review AS "hasHumanReview"`;
const FROM = 'agents a LEFT JOIN agent_versions v ON v.id = a.active_version_id';

export async function listAgents(db: Db, orgId: string, input: ListAgentsInput): Promise<Page<AgentSummary>> {
  const values = new SqlValues();
  const where = [agentListScope(orgId, input, values)];
  if (input.tags && input.tags.length > 0) where.push(`a.tags @> ${values.add(input.tags)}::text[]`);
  if (input.search) where.push(`a.name ILIKE ${values.add(`%${escapeLike(input.search)}%`)}`);
  return pageOfRows<AgentSummaryRow, AgentSummary>(
    db.pool,
    input,
    { select: SELECT, from: FROM, alias: 'a', where, values },
    toAgentSummary,
  );
}
