import { organizationExists } from '@weft/accounts';
import {
  CreateCredentialBody,
  CredentialListSchema,
  CredentialSchema,
  ErrorBody,
  ChosenNodeRouteListSchema,
  ChosenNodeRouteSchema,
  IdParam,
  NodeRouteChoiceBody,
  ResealedSchema,
  z,
} from '@weft/contracts';
import type { Db } from '@weft/db';
import { NotFoundError, ServiceUnavailableError } from '@weft/errors';
import { resealWebhookSecrets } from '@weft/webhooks';
import { createCredential, deleteCredential, getCredential, listCredentials } from '../../credentials/credentials';
import { chooseRoute, chosenRoutes, forgetRoute } from '../../credentials/node-route-choices';
import { defineRoute, type AnyRoute } from '../../http/define-route';

// An organization's own provider keys (docs/api.md#credentials), and the operator's
// equivalents under /admin. Secrets go in, never out: only their last four
// characters are shown.

const CredentialParams = z.object({ credential_id: IdParam });
const OrgParams = z.object({ org_id: IdParam });
const OrgCredentialParams = z.object({ org_id: IdParam, credential_id: IdParam });

const created = {
  201: {
    description: 'Checked with the provider and stored; the secret is never shown again',
    schema: CredentialSchema,
  },
  503: { description: 'CREDENTIALS_KEY unset, or the provider unreachable for the check', schema: ErrorBody },
};

export const createCredentialRoute = defineRoute({
  method: 'post',
  path: '/credentials',
  summary: "Store one of the organization's provider keys (checked with the provider first)",
  tags: ['credentials'],
  auth: 'api',
  request: { body: CreateCredentialBody },
  responses: created,
  handler: async ({ deps, auth, body }) => ({
    status: 201,
    body: await createCredential(deps, auth.organizationId, body),
  }),
});

export const listCredentialsRoute = defineRoute({
  method: 'get',
  path: '/credentials',
  summary: "List the organization's provider credentials, newest first (never their secrets)",
  tags: ['credentials'],
  auth: 'api',
  responses: { 200: { description: 'Every credential of the organization', schema: CredentialListSchema } },
  handler: async ({ deps, auth }) => ({
    status: 200,
    body: { data: await listCredentials(deps, auth.organizationId) },
  }),
});

export const getCredentialRoute = defineRoute({
  method: 'get',
  path: '/credentials/:credential_id',
  summary: 'Get a credential (never its secret)',
  tags: ['credentials'],
  auth: 'api',
  request: { params: CredentialParams },
  responses: {
    200: { description: 'The credential', schema: CredentialSchema },
    404: { description: 'No such credential in the organization', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await getCredential(deps, auth.organizationId, params.credential_id),
  }),
});

export const deleteCredentialRoute = defineRoute({
  method: 'delete',
  path: '/credentials/:credential_id',
  summary: 'Delete a credential; nodes stop using it at once',
  tags: ['credentials'],
  auth: 'api',
  request: { params: CredentialParams },
  responses: {
    204: { description: 'Deleted' },
    404: { description: 'No such credential in the organization', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => {
    await deleteCredential(deps, auth.organizationId, params.credential_id);
    return { status: 204 };
  },
});

/** The organization must exist: an operator's typo answers 404, not an empty list. */
async function knownOrganization(db: Db, id: string): Promise<void> {
  if (!(await organizationExists(db, id))) throw new NotFoundError('Organization');
}

export const adminCreateCredentialRoute = defineRoute({
  method: 'post',
  path: '/admin/organizations/:org_id/credentials',
  summary: 'Store a provider key for an organization',
  tags: ['admin'],
  auth: 'admin',
  request: { params: OrgParams, body: CreateCredentialBody },
  responses: { ...created, 404: { description: 'No such organization, or admin disabled', schema: ErrorBody } },
  handler: async ({ deps, params, body }) => {
    await knownOrganization(deps.db, params.org_id);
    return { status: 201, body: await createCredential(deps, params.org_id, body) };
  },
});

export const adminListCredentialsRoute = defineRoute({
  method: 'get',
  path: '/admin/organizations/:org_id/credentials',
  summary: "List an organization's provider credentials",
  tags: ['admin'],
  auth: 'admin',
  request: { params: OrgParams },
  responses: {
    200: { description: 'Every credential of the organization', schema: CredentialListSchema },
    404: { description: 'No such organization, or admin disabled', schema: ErrorBody },
  },
  handler: async ({ deps, params }) => {
    await knownOrganization(deps.db, params.org_id);
    return { status: 200, body: { data: await listCredentials(deps, params.org_id) } };
  },
});

export const adminDeleteCredentialRoute = defineRoute({
  method: 'delete',
  path: '/admin/organizations/:org_id/credentials/:credential_id',
  summary: "Delete an organization's credential",
  tags: ['admin'],
  auth: 'admin',
  request: { params: OrgCredentialParams },
  responses: {
    204: { description: 'Deleted' },
    404: { description: 'No such credential in the organization, or admin disabled', schema: ErrorBody },
  },
  handler: async ({ deps, params }) => {
    await deleteCredential(deps, params.org_id, params.credential_id);
    return { status: 204 };
  },
});

export const adminResealCredentialsRoute = defineRoute({
  method: 'post',
  path: '/admin/credentials/reseal',
  summary: 'Re-seal every credential and webhook secret under the newest CREDENTIALS_KEY version (key rotation)',
  tags: ['admin'],
  auth: 'admin',
  responses: {
    200: {
      description: 'How many credentials and webhook secrets were sealed under an older version',
      schema: ResealedSchema,
    },
    404: { description: 'Admin disabled', schema: ErrorBody },
    503: { description: 'CREDENTIALS_KEY unset', schema: ErrorBody },
  },
  handler: async ({ deps }) => {
    if (!deps.credentials.sealing || !deps.webhookKeyring)
      throw new ServiceUnavailableError('CREDENTIALS_KEY is not set');
    const credentials = await deps.credentials.reseal();
    const webhooks = await resealWebhookSecrets(deps.db.pool, deps.webhookKeyring);
    return { status: 200, body: { resealed: credentials + webhooks } };
  },
});

const TypeParams = z.object({ type: z.string().min(1).max(64) });

export const chooseNodeRouteRoute = defineRoute({
  method: 'put',
  path: '/node-routes/:type',
  summary: "Send the organization's nodes of a type to a provider (and model) the deployment has, over NODE_ROUTES",
  tags: ['credentials'],
  auth: 'api',
  request: { params: TypeParams, body: NodeRouteChoiceBody },
  responses: {
    200: { description: 'The choice, in effect from the next node', schema: ChosenNodeRouteSchema },
    404: { description: 'No such node type', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params, body }) => ({
    status: 200,
    body: await chooseRoute(deps, auth.organizationId, params.type, body),
  }),
});

export const listNodeRoutesRoute = defineRoute({
  method: 'get',
  path: '/node-routes',
  summary: "The organization's route choices (GET /node-types shows where every type goes)",
  tags: ['credentials'],
  auth: 'api',
  responses: { 200: { description: 'Every choice of the organization', schema: ChosenNodeRouteListSchema } },
  handler: async ({ deps, auth }) => ({ status: 200, body: { data: await chosenRoutes(deps, auth.organizationId) } }),
});

export const forgetNodeRouteRoute = defineRoute({
  method: 'delete',
  path: '/node-routes/:type',
  summary: "Drop the organization's choice: the type goes where the deployment routes it",
  tags: ['credentials'],
  auth: 'api',
  request: { params: TypeParams },
  responses: {
    204: { description: 'Dropped' },
    404: { description: 'The organization had no choice for the type', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => {
    await forgetRoute(deps, auth.organizationId, params.type);
    return { status: 204 };
  },
});

export const credentialRoutes: AnyRoute[] = [
  chooseNodeRouteRoute,
  listNodeRoutesRoute,
  forgetNodeRouteRoute,
  createCredentialRoute,
  listCredentialsRoute,
  getCredentialRoute,
  deleteCredentialRoute,
  adminCreateCredentialRoute,
  adminListCredentialsRoute,
  adminDeleteCredentialRoute,
  adminResealCredentialsRoute,
] as AnyRoute[];
