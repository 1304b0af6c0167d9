import type { CreateWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '@weft/contracts';
import type { Keyring } from '@weft/credentials';
import type { Db, Page, PageRequest } from '@weft/db';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '@weft/errors';
import type { WebhookJobProducer } from '@weft/queue';
import {
  createEndpoint,
  deleteEndpoint,
  deliveriesPage,
  endpointsPage,
  getDelivery,
  getEndpoint,
  markForResend,
  organizationSecret,
  type DeliveryFilter,
} from '@weft/webhooks';

// The organization's side of webhooks (docs/api.md#webhooks): its endpoints,
// the secret of its runs' own webhooks, and the deliveries of both.

export interface WebhookDeps {
  db: Db;
  /** CREDENTIALS_KEY, which seals the signing secrets; without it there are no webhooks. */
  webhookKeyring: Keyring | undefined;
  webhookJobs: WebhookJobProducer;
}

/** The keyring, or the 503 that says why this deployment sends no webhooks. */
export function signingKeyring(deps: Pick<WebhookDeps, 'webhookKeyring'>): Keyring {
  if (!deps.webhookKeyring) {
    throw new ServiceUnavailableError('This deployment sends no webhooks: its operator has not set CREDENTIALS_KEY');
  }
  return deps.webhookKeyring;
}

export function registerEndpoint(deps: WebhookDeps, orgId: string, body: CreateWebhookEndpoint) {
  return createEndpoint(deps.db.pool, signingKeyring(deps), orgId, body);
}

export function listEndpoints(deps: WebhookDeps, orgId: string, page: PageRequest): Promise<Page<WebhookEndpoint>> {
  return endpointsPage(deps.db.pool, orgId, page);
}

export async function readEndpoint(deps: WebhookDeps, orgId: string, id: string): Promise<WebhookEndpoint> {
  const found = await getEndpoint(deps.db.pool, orgId, id);
  if (!found) throw new NotFoundError('Webhook endpoint');
  return found;
}

export async function removeEndpoint(deps: WebhookDeps, orgId: string, id: string): Promise<void> {
  if (!(await deleteEndpoint(deps.db.pool, orgId, id))) throw new NotFoundError('Webhook endpoint');
}

export async function listDeliveries(
  deps: WebhookDeps,
  orgId: string,
  filter: DeliveryFilter,
  page: PageRequest,
): Promise<Page<WebhookDelivery>> {
  if (filter.endpointId) await readEndpoint(deps, orgId, filter.endpointId);
  return deliveriesPage(deps.db.pool, orgId, filter, page);
}

export async function readDelivery(deps: WebhookDeps, orgId: string, id: string): Promise<WebhookDelivery> {
  const found = await getDelivery(deps.db.pool, orgId, id);
  if (!found) throw new NotFoundError('Webhook delivery');
  return found;
}

/** Sends a settled delivery again, with a whole retry schedule; 409 while it is still pending. */
export async function resendDelivery(deps: WebhookDeps, orgId: string, id: string): Promise<WebhookDelivery> {
  const resent = await markForResend(deps.db.pool, orgId, id);
  if (resent.outcome === 'missing') throw new NotFoundError('Webhook delivery');
  if (resent.outcome === 'pending') throw new ConflictError('The delivery is still pending: it will be tried again');
  await deps.webhookJobs.enqueue([{ deliveryId: id, attempt: resent.attempt }]);
  return readDelivery(deps, orgId, id);
}

export async function webhookSecret(deps: WebhookDeps, orgId: string): Promise<{ key: string }> {
  return { key: await organizationSecret(deps.db.pool, signingKeyring(deps), orgId) };
}
