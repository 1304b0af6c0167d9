import type { Flow, RunInput } from '@weft/contracts';
import { agentInputs, agentOutputs, hasHumanReview } from '@weft/dag';
import type { Db, Prisma } from '@weft/db';
import type { StartRunInput } from '../index';

// What a run starts from, written as the gateway's catalog writes it: an
// organization with a balance, an agent and its active version.

export async function createOrganization(db: Db, credits: number): Promise<string> {
  const org = await db.prisma.organization.create({ data: { name: 'Engine test', credits } });
  return org.id;
}

export interface PublishedAgent {
  organizationId: string;
  agentId: string;
  versionId: string;
  estimatedCost: number;
}

export async function publishAgent(
  db: Db,
  organizationId: string,
  flow: Flow,
  estimatedCost = 0,
): Promise<PublishedAgent> {
  const json = (value: unknown) => value as Prisma.InputJsonValue;
  const agent = await db.prisma.agent.create({
    data: { organizationId, name: 'Engine test agent', description: '', estimatedCost },
  });
  const version = await db.prisma.agentVersion.create({
    data: {
      agentId: agent.id,
      version: 1,
      flow: json(flow),
      inputs: json(agentInputs(flow)),
      outputs: json(agentOutputs(flow)),
      hasHumanReview: hasHumanReview(flow),
    },
  });
  await db.prisma.agent.update({ where: { id: agent.id }, data: { activeVersionId: version.id } });
  return { organizationId, agentId: agent.id, versionId: version.id, estimatedCost };
}

/** An agent run of `agent`, as the gateway asks for one once its inputs are checked. */
export function agentRun(
  agent: PublishedAgent,
  inputs: RunInput[] = [],
  more: Partial<StartRunInput> = {},
): StartRunInput {
  return {
    organizationId: agent.organizationId,
    kind: 'agent',
    agentId: agent.agentId,
    agentVersionId: agent.versionId,
    appId: null,
    externalId: undefined,
    inputs,
    estimatedCost: agent.estimatedCost,
    ...more,
  };
}
