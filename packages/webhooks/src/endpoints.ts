import type { CreateWebhookEndpoint, WebhookEndpoint, WebhookEvent } from '@weft/contracts';
import type { Keyring } from '@weft/credentials';
import { pageOfRows, SqlValues, type Page, type PageRequest } from '@weft/db';
import { uuidv7 } from '@weft/db';
import { invalid } from '@weft/errors';
import type { Pool } from 'pg';
import { endpointContext } from './secrets';
import { newSigningSecret } from './signing';

// An organization's webhook endpoints (docs/api.md#webhooks). Every query
// names the organization: another organization's endpoint reads like none.

/** Endpoints one organization may register: each receives every run's events. */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 20;

interface EndpointRow {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: Date;
}

const COLUMNS = 'e.id, e.url, e.events::text[] AS events, e.created_at AS "createdAt"';

const endpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  events: row.events,
  created_at: row.createdAt.toISOString(),
});

/** Registers an endpoint with a new secret, returned this once. */
export async function createEndpoint(
  pool: Pool,
  keyring: Keyring,
  orgId: string,
  body: CreateWebhookEndpoint,
): Promise<WebhookEndpoint & { secret: string }> {
  const id = uuidv7();
  const secret = newSigningSecret();
  const sealed = keyring.seal(secret, endpointContext(orgId, id));
  // The count and the insert in one statement: concurrent creates cannot both pass the limit
  // unseen, short of a race between two statements at once, which at worst adds one more.
  const { rows } = await pool.query<EndpointRow>({
    name: 'webhooks_endpoint_create_v1',
    text: `INSERT INTO webhook_endpoints AS e (id, organization_id, url, events, key_version, sealed)
           SELECT $1, $2, $3, $4::"WebhookEvent"[], $5, $6
            WHERE (SELECT count(*) FROM webhook_endpoints WHERE organization_id = $2) < $7
           RETURNING ${COLUMNS}`,
    values: [id, orgId, body.url, body.events, sealed.keyVersion, sealed.sealed, MAX_ENDPOINTS_PER_ORGANIZATION],
  });
  if (!rows[0]) {
    throw invalid(
      ['body'],
      `An organization registers at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first`,
      'too_many',
    );
  }
  return { ...endpoint(rows[0]), secret };
}

/** The organization's endpoints, newest first. */
export function endpointsPage(pool: Pool, orgId: string, request: PageRequest): Promise<Page<WebhookEndpoint>> {
  const values = new SqlValues();
  return pageOfRows(
    pool,
    request,
    {
      select: COLUMNS,
      from: 'webhook_endpoints e',
      alias: 'e',
      where: [`e.organization_id = ${values.add(orgId)}`],
      values,
    },
    endpoint,
  );
}

export async function getEndpoint(pool: Pool, orgId: string, id: string): Promise<WebhookEndpoint | undefined> {
  const { rows } = await pool.query<EndpointRow>({
    name: 'webhooks_endpoint_get_v1',
    text: `SELECT ${COLUMNS} FROM webhook_endpoints e WHERE e.id = $1 AND e.organization_id = $2`,
    values: [id, orgId],
  });
  return rows[0] && endpoint(rows[0]);
}

/**
 * Deletes an endpoint with its deliveries: those still pending are never
 * attempted again (a job that finds its delivery gone does nothing).
 */
export async function deleteEndpoint(pool: Pool, orgId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query({
    name: 'webhooks_endpoint_delete_v1',
    text: 'DELETE FROM webhook_endpoints WHERE id = $1 AND organization_id = $2',
    values: [id, orgId],
  });
  return rowCount === 1;
}
