import type { Agent, CreateAgentBody, z } from '@weft/contracts';
import type { Db } from '@weft/db';
import { estimateFlowCost } from '@weft/nodes';
import { toAgent, toDraftAgent } from './mappers';
import { versionData } from './version-data';

export type CreateAgentInput = z.output<typeof CreateAgentBody>;

/**
 * Creates an agent owned by `orgId` (docs/api.md#agents). With a flow it gets
 * version 1, active; without one it is a draft that GET answers with 422
 * until a version is published. The caller checks the flow first: its 422
 * words node params as the gateway words every request body.
 */
export async function createAgent(db: Db, orgId: string, input: CreateAgentInput): Promise<Agent> {
  const { flow } = input;
  const data = {
    organizationId: orgId,
    name: input.name,
    description: input.description,
    tags: [...new Set(input.tags ?? [])],
    visibility: input.visibility,
    estimatedCost: input.estimated_cost ?? (flow ? estimateFlowCost(flow) : 0),
  };
  if (!flow) return toDraftAgent(await db.prisma.agent.create({ data }));

  return db.prisma.$transaction(async (tx) => {
    const agent = await tx.agent.create({ data });
    const version = await tx.agentVersion.create({ data: versionData(agent.id, 1, flow) });
    await tx.agent.update({ where: { id: agent.id }, data: { activeVersionId: version.id } });
    return toAgent(agent, version);
  });
}
