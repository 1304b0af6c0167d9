import { adjustCredits } from '@weft/engine';
import {
  AdjustCreditsBody,
  ApiKeyCreatedSchema,
  CreateApiKeyBody,
  CreateOrganizationBody,
  CreditsSchema,
  ErrorBody,
  OrganizationCreatedSchema,
  IdParam,
  z,
} from '@weft/contracts';
import { createApiKey, createOrganization } from '@weft/accounts';
import { revokeApiKey } from '../../auth/api-keys';
import { defineRoute, type AnyRoute } from '../../http/define-route';

// Operator endpoints (docs/api.md#admin). Authenticated by ADMIN_TOKEN; absent
// (404) when it is unset. Not rate limited: the token holder is the operator.

const OrgParams = z.object({ org_id: IdParam });
const KeyParams = z.object({ key_id: IdParam });
const notFound = (what: string) => ({ description: `${what} not found, or admin disabled`, schema: ErrorBody });

export const createOrganizationRoute = defineRoute({
  method: 'post',
  path: '/admin/organizations',
  summary: 'Create an organization and its first API key',
  tags: ['admin'],
  auth: 'admin',
  request: { body: CreateOrganizationBody },
  responses: {
    201: { description: 'Created; `api_key` is shown only now', schema: OrganizationCreatedSchema },
    404: { description: 'Admin disabled (ADMIN_TOKEN unset)', schema: ErrorBody },
  },
  handler: async ({ body, deps }) => {
    const org = await createOrganization(deps.db, body.name, body.credits);
    return { status: 201, body: { id: org.id, name: org.name, credits: org.credits, api_key: org.apiKey } };
  },
});

export const createApiKeyRoute = defineRoute({
  method: 'post',
  path: '/admin/organizations/:org_id/api-keys',
  summary: 'Issue another API key for an organization',
  tags: ['admin'],
  auth: 'admin',
  request: { params: OrgParams, body: CreateApiKeyBody },
  responses: {
    201: { description: 'Created; `api_key` is shown only now', schema: ApiKeyCreatedSchema },
    404: notFound('Organization'),
  },
  handler: async ({ params, body, deps }) => {
    const key = await createApiKey(deps.db, params.org_id, body.name);
    return { status: 201, body: { id: key.id, api_key: key.apiKey } };
  },
});

export const revokeApiKeyRoute = defineRoute({
  method: 'delete',
  path: '/admin/api-keys/:key_id',
  summary: 'Revoke an API key; it stops working at once on every instance',
  tags: ['admin'],
  auth: 'admin',
  request: { params: KeyParams },
  responses: {
    204: { description: 'Revoked (also when it already was)' },
    404: notFound('API key'),
    503: { description: 'Revoked, but the other instances could not be told; repeat the call', schema: ErrorBody },
  },
  handler: async ({ params, deps }) => {
    await revokeApiKey(
      {
        db: deps.db,
        redis: deps.redis,
        redisPrefix: deps.config.REDIS_PREFIX,
        logger: deps.logger,
        forgetLocally: deps.authenticator.forgetApiKey?.bind(deps.authenticator),
      },
      params.key_id,
    );
    return { status: 204 };
  },
});

export const adjustCreditsRoute = defineRoute({
  method: 'post',
  path: '/admin/organizations/:org_id/credits',
  summary: 'Add credits to (or, with a negative delta, remove them from) an organization',
  tags: ['admin'],
  auth: 'admin',
  request: { params: OrgParams, body: AdjustCreditsBody },
  responses: {
    200: { description: 'The new balance', schema: CreditsSchema },
    404: notFound('Organization'),
    409: { description: 'The balance would go below zero; nothing changed', schema: ErrorBody },
  },
  handler: async ({ params, body, deps }) => ({
    status: 200,
    body: await adjustCredits(deps.db, params.org_id, body.delta),
  }),
});

export const adminRoutes = [
  createOrganizationRoute,
  createApiKeyRoute,
  revokeApiKeyRoute,
  adjustCreditsRoute,
] as AnyRoute[];
