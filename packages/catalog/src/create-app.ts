import type { App, AppInput, CreateAppBody, Flow, z } from '@weft/contracts';
import type { Db, Prisma } from '@weft/db';
import { ValidationError, invalid } from '@weft/errors';
import { agentReadableBy } from './access';
import { checkAppAgainstFlow } from './app-rules';
import { toApp } from './mappers';

export type CreateAppInput = z.output<typeof CreateAppBody>;

/**
 * Creates an app of `orgId` over an agent the caller may read (its own, or
 * another organization's shared or public agent). An agent that is missing,
 * not readable or without an active version is a 422 at `body.agent_id`
 * rather than a 404: the resource addressed by the path (/apps) exists, one
 * of its fields is wrong. Missing and not readable read the same.
 */
export async function createApp(db: Db, orgId: string, input: CreateAppInput): Promise<App> {
  const agent = await db.prisma.agent.findFirst({
    where: { AND: [{ id: input.agent_id }, agentReadableBy(orgId)] },
    select: { id: true, estimatedCost: true, activeVersion: { select: { flow: true } } },
  });
  if (!agent) throw invalid(['body', 'agent_id'], 'Agent not found', 'not_found', input.agent_id);
  if (!agent.activeVersion) {
    throw invalid(['body', 'agent_id'], 'Agent has no active version', 'no_active_version', input.agent_id);
  }

  const flow = agent.activeVersion.flow as unknown as Flow;
  const issues = checkAppAgainstFlow(flow, input.inputs, input.outputs);
  if (issues.length > 0) throw new ValidationError(issues);

  const inputs: AppInput[] = input.inputs.map((i) => ({
    id: i.id,
    type: i.type,
    name: i.name,
    required: i.required,
    options: i.options ?? null,
    min_selections: i.min_selections ?? null,
    max_selections: i.max_selections ?? null,
  }));
  const app = await db.prisma.app.create({
    data: {
      organizationId: orgId,
      agentId: agent.id,
      name: input.name,
      description: input.description,
      avatarUrl: input.avatar_url ?? null,
      visibility: input.visibility,
      estimatedCost: input.estimated_cost ?? agent.estimatedCost,
      inputs: inputs as unknown as Prisma.InputJsonValue,
      outputs: input.outputs as unknown as Prisma.InputJsonValue,
    },
  });
  return toApp(app);
}
