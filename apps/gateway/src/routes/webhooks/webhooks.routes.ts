import {
  CreatedWebhookEndpointSchema,
  CreateWebhookEndpointBody,
  ErrorBody,
  IdParam,
  ListWebhookDeliveriesQuery,
  PaginationQuery,
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookEndpointPageSchema,
  WebhookEndpointSchema,
  WebhookSecretSchema,
  z,
} from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import {
  listDeliveries,
  listEndpoints,
  readDelivery,
  readEndpoint,
  registerEndpoint,
  removeEndpoint,
  resendDelivery,
  webhookSecret,
} from '../../webhooks/webhooks';

// Webhooks (docs/api.md#webhooks): endpoints that receive every run's events,
// the secret runs' own webhooks are signed with, and the deliveries of both.

const EndpointParams = z.object({ endpoint_id: IdParam });
const DeliveryParams = z.object({ delivery_id: IdParam });
const noEndpoint = { description: 'No such endpoint in the organization', schema: ErrorBody };
const noDelivery = { description: 'No such delivery in the organization', schema: ErrorBody };
const noKey = { description: 'The deployment has no CREDENTIALS_KEY: it signs no webhooks', schema: ErrorBody };

export const createEndpointRoute = defineRoute({
  method: 'post',
  path: '/webhook-endpoints',
  summary: 'Register a URL that receives the events of every run the organization starts from now on',
  tags: ['webhooks'],
  auth: 'api',
  request: { body: CreateWebhookEndpointBody },
  responses: {
    201: { description: 'Registered; `secret` is shown only here', schema: CreatedWebhookEndpointSchema },
    503: noKey,
  },
  handler: async ({ deps, auth, body }) => ({
    status: 201,
    body: await registerEndpoint(deps, auth.organizationId, body),
  }),
});

export const listEndpointsRoute = defineRoute({
  method: 'get',
  path: '/webhook-endpoints',
  summary: "List the organization's webhook endpoints, newest first",
  tags: ['webhooks'],
  auth: 'api',
  request: { query: PaginationQuery },
  responses: { 200: { description: 'A page of endpoints (never their secrets)', schema: WebhookEndpointPageSchema } },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listEndpoints(deps, auth.organizationId, query),
  }),
});

export const getEndpointRoute = defineRoute({
  method: 'get',
  path: '/webhook-endpoints/:endpoint_id',
  summary: 'Get a webhook endpoint (never its secret)',
  tags: ['webhooks'],
  auth: 'api',
  request: { params: EndpointParams },
  responses: { 200: { description: 'The endpoint', schema: WebhookEndpointSchema }, 404: noEndpoint },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await readEndpoint(deps, auth.organizationId, params.endpoint_id),
  }),
});

export const deleteEndpointRoute = defineRoute({
  method: 'delete',
  path: '/webhook-endpoints/:endpoint_id',
  summary: 'Delete a webhook endpoint: its pending deliveries are never attempted again',
  tags: ['webhooks'],
  auth: 'api',
  request: { params: EndpointParams },
  responses: { 204: { description: 'Deleted, with its deliveries' }, 404: noEndpoint },
  handler: async ({ deps, auth, params }) => {
    await removeEndpoint(deps, auth.organizationId, params.endpoint_id);
    return { status: 204 };
  },
});

export const endpointDeliveriesRoute = defineRoute({
  method: 'get',
  path: '/webhook-endpoints/:endpoint_id/deliveries',
  summary: "An endpoint's deliveries, newest first, with every attempt",
  tags: ['webhooks'],
  auth: 'api',
  request: { params: EndpointParams, query: ListWebhookDeliveriesQuery },
  responses: { 200: { description: 'A page of deliveries', schema: WebhookDeliveryPageSchema }, 404: noEndpoint },
  handler: async ({ deps, auth, params, query }) => ({
    status: 200,
    body: await listDeliveries(
      deps,
      auth.organizationId,
      { endpointId: params.endpoint_id, runId: query.run_id, status: query.status },
      query,
    ),
  }),
});

export const listDeliveriesRoute = defineRoute({
  method: 'get',
  path: '/webhook-deliveries',
  summary: "The organization's deliveries (endpoints' and runs' own webhooks'), newest first, with every attempt",
  tags: ['webhooks'],
  auth: 'api',
  request: { query: ListWebhookDeliveriesQuery },
  responses: { 200: { description: 'A page of deliveries', schema: WebhookDeliveryPageSchema } },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listDeliveries(deps, auth.organizationId, { runId: query.run_id, status: query.status }, query),
  }),
});

export const getDeliveryRoute = defineRoute({
  method: 'get',
  path: '/webhook-deliveries/:delivery_id',
  summary: 'Get a delivery with every attempt',
  tags: ['webhooks'],
  auth: 'api',
  request: { params: DeliveryParams },
  responses: { 200: { description: 'The delivery', schema: WebhookDeliverySchema }, 404: noDelivery },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await readDelivery(deps, auth.organizationId, params.delivery_id),
  }),
});

export const resendDeliveryRoute = defineRoute({
  method: 'post',
  path: '/webhook-deliveries/:delivery_id/resend',
  summary: 'Send a failed (or succeeded) delivery again, same id and body, with a whole retry schedule',
  tags: ['webhooks'],
  auth: 'api',
  request: { params: DeliveryParams },
  responses: {
    202: { description: 'Pending again: the next attempt is made at once', schema: WebhookDeliverySchema },
    404: noDelivery,
    409: { description: 'Still pending: it will be tried again anyway', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 202,
    body: await resendDelivery(deps, auth.organizationId, params.delivery_id),
  }),
});

export const webhookSecretRoute = defineRoute({
  method: 'get',
  path: '/webhooks/secret',
  summary: "The secret runs' own webhooks (POST /runs `webhook`) are signed with",
  tags: ['webhooks'],
  auth: 'api',
  responses: { 200: { description: "The organization's signing secret", schema: WebhookSecretSchema }, 503: noKey },
  handler: async ({ deps, auth }) => ({ status: 200, body: await webhookSecret(deps, auth.organizationId) }),
});

export const webhookRoutes: AnyRoute[] = [
  createEndpointRoute,
  listEndpointsRoute,
  getEndpointRoute,
  deleteEndpointRoute,
  endpointDeliveriesRoute,
  listDeliveriesRoute,
  getDeliveryRoute,
  resendDeliveryRoute,
  webhookSecretRoute,
] as AnyRoute[];
