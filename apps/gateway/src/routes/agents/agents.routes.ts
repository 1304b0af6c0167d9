import { createAgent, listAgents, publishAgentVersion } from '@weft/catalog';
import {
  AgentPageSchema,
  AgentSchema,
  AgentVersionSchema,
  CreateAgentBody,
  CreateAgentVersionBody,
  ErrorBody,
  ListAgentsQuery,
  ValidationErrorBody,
  IdParam,
  z,
} from '@weft/contracts';
import { assertPublishableFlow } from '../../catalog/check-flow';
import { defineRoute, type AnyRoute } from '../../http/define-route';

const AgentPath = z.object({ agent_id: IdParam });

export const listAgentsRoute = defineRoute({
  method: 'get',
  path: '/agents',
  summary: 'List agents',
  tags: ['agents'],
  auth: 'api',
  request: { query: ListAgentsQuery },
  responses: { 200: { description: 'A page of agents, newest first', schema: AgentPageSchema } },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listAgents(deps.db, auth.organizationId, query),
  }),
});

export const getAgentRoute = defineRoute({
  method: 'get',
  path: '/agents/:agent_id',
  summary: 'Get an agent with its inputs and outputs',
  tags: ['agents'],
  auth: 'api',
  request: { params: AgentPath },
  responses: {
    200: { description: 'The agent', schema: AgentSchema },
    404: { description: 'Agent not found or not accessible', schema: ErrorBody },
    422: { description: 'Invalid id, or the agent has no active version', schema: ValidationErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await deps.agents.get(auth.organizationId, params.agent_id),
  }),
});

export const createAgentRoute = defineRoute({
  method: 'post',
  path: '/agents',
  summary: 'Create an agent (with its first version when a flow is given)',
  tags: ['agents'],
  auth: 'api',
  request: { body: CreateAgentBody },
  responses: { 201: { description: 'The agent', schema: AgentSchema } },
  handler: async ({ deps, auth, body }) => {
    if (body.flow) assertPublishableFlow(body.flow, ['body', 'flow']);
    const agent = await createAgent(deps.db, auth.organizationId, body);
    // An instance that was asked for this id before it existed may remember it as missing.
    await deps.agents.changed(agent.id);
    return { status: 201, body: agent };
  },
});

export const publishAgentVersionRoute = defineRoute({
  method: 'post',
  path: '/agents/:agent_id/versions',
  summary: 'Publish a new version of an agent and make it active',
  tags: ['agents'],
  auth: 'api',
  request: { params: AgentPath, body: CreateAgentVersionBody },
  responses: {
    201: { description: 'The new version, now active', schema: AgentVersionSchema },
    200: { description: 'The flow equals the active version: nothing changed', schema: AgentVersionSchema },
    404: { description: 'No agent of the caller organization has this id', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params, body }) => {
    assertPublishableFlow(body.flow, ['body', 'flow']);
    const published = await publishAgentVersion(deps.db, auth.organizationId, params.agent_id, body.flow);
    if (published.created) await deps.agents.changed(params.agent_id);
    return {
      status: published.created ? 201 : 200,
      body: { version: published.version, created_at: published.createdAt.toISOString() },
    };
  },
});

export const agentRoutes = [listAgentsRoute, getAgentRoute, createAgentRoute, publishAgentVersionRoute] as AnyRoute[];
