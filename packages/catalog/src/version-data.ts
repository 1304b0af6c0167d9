import type { Flow } from '@weft/contracts';
import { agentInputs, agentOutputs, hasHumanReview } from '@weft/dag';
import type { Prisma } from '@weft/db';

/** The columns of a new agent version: the flow and what is derived from it, computed once here. */
export function versionData(agentId: string, version: number, flow: Flow): Prisma.AgentVersionUncheckedCreateInput {
  return {
    agentId,
    version,
    flow: flow as unknown as Prisma.InputJsonValue,
    inputs: agentInputs(flow) as unknown as Prisma.InputJsonValue,
    outputs: agentOutputs(flow) as unknown as Prisma.InputJsonValue,
    hasHumanReview: hasHumanReview(flow),
  };
}
