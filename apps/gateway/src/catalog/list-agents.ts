import type { AgentSummary, FlowVisibilitySchema, z } from '@weft/contracts';
import { paginate, type Db, type KeysetQuery, type Page, type Prisma } from '@weft/db';
import { agentListScope } from './access';
import { escapeLike } from './like';
import { toAgentSummary } from './mappers';

export interface ListAgentsInput {
  limit: number;
  cursor?: string;
  /** Every tag must be present (AND), like the combined asset filters of interface.md 4.5. */
  tags?: string[];
  visibility?: z.infer<typeof FlowVisibilitySchema>[];
  search?: string;
  owned: boolean;
}

export async function listAgents(db: Db, orgId: string, input: ListAgentsInput): Promise<Page<AgentSummary>> {
  const filters: Prisma.AgentWhereInput[] = [agentListScope(orgId, input)];
  if (input.tags && input.tags.length > 0) filters.push({ tags: { hasEvery: input.tags } });
  if (input.search) filters.push({ name: { contains: escapeLike(input.search), mode: 'insensitive' } });

  return paginate(
    input,
    (keyset: KeysetQuery) =>
      db.prisma.agent.findMany({
        where: { AND: [...filters, keyset.where] },
        orderBy: keyset.orderBy,
        take: keyset.take,
        select: {
          id: true,
          name: true,
          description: true,
          tags: true,
          visibility: true,
          estimatedCost: true,
          createdAt: true,
          activeVersion: { select: { inputs: true, hasHumanReview: true } },
        },
      }),
    toAgentSummary,
  );
}
