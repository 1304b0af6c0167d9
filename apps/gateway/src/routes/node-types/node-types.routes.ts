import { ErrorBody, NodeTypeInfoSchema, NodeTypeListSchema, NodeTypePath } from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import { getNodeType, listNodeTypes } from '../../node-types/describe-node-types';

export const listNodeTypesRoute = defineRoute({
  method: 'get',
  path: '/node-types',
  summary: 'List node types with their ports, params schema, output and lane',
  tags: ['node-types'],
  auth: 'api',
  responses: { 200: { description: 'Every node type, in the order of NodeType', schema: NodeTypeListSchema } },
  handler: async ({ deps, auth }) => ({
    status: 200,
    body: { data: await listNodeTypes(deps.nodeRoutes, auth.organizationId) },
  }),
});

export const getNodeTypeRoute = defineRoute({
  method: 'get',
  path: '/node-types/:type',
  summary: 'Get one node type',
  tags: ['node-types'],
  auth: 'api',
  request: { params: NodeTypePath },
  responses: {
    200: { description: 'The node type', schema: NodeTypeInfoSchema },
    404: { description: 'No node type has this name', schema: ErrorBody },
  },
  handler: async ({ params, deps, auth }) => ({
    status: 200,
    body: await getNodeType(params.type, deps.nodeRoutes, auth.organizationId),
  }),
});

export const nodeTypeRoutes: AnyRoute[] = [listNodeTypesRoute, getNodeTypeRoute] as AnyRoute[];
