import type { WebhookAttempt, WebhookDelivery, WebhookEvent } from '@weft/contracts';
import { pageOfRows, SqlValues, type Page, type PageRequest } from '@weft/db';
import type { Pool } from 'pg';

// The deliveries an organization can list and resend (docs/api.md#webhooks):
// each with every attempt made, for its endpoints and its runs' own webhooks.

type DeliveryStatus = WebhookDelivery['status'];

interface DeliveryRow {
  id: string;
  event: WebhookEvent;
  runId: string;
  endpointId: string | null;
  url: string;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  createdAt: Date;
  attempts:
    { attempt: number; at: string; status_code: number | null; error: string | null; duration_ms: number }[] | null;
}

const COLUMNS = `d.id, d.event, d.run_id AS "runId", d.endpoint_id AS "endpointId",
  COALESCE(d.url, (SELECT e.url FROM webhook_endpoints e WHERE e.id = d.endpoint_id)) AS url,
  d.status, d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt",
  (SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'status_code', a.status_code,
                                     'error', a.error, 'duration_ms', a.duration_ms) ORDER BY a.attempt)
     FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts`;

const delivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  event: row.event,
  run_id: row.runId,
  endpoint_id: row.endpointId,
  url: row.url,
  status: row.status,
  attempts: (row.attempts ?? []).map((a): WebhookAttempt => ({ ...a, at: new Date(a.at).toISOString() })),
  next_attempt_at: row.status === 'pending' && row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
  created_at: row.createdAt.toISOString(),
});

export interface DeliveryFilter {
  endpointId?: string | undefined;
  runId?: string | undefined;
  status?: DeliveryStatus | undefined;
}

/** The organization's deliveries, newest first, filtered. */
export function deliveriesPage(
  pool: Pool,
  orgId: string,
  filter: DeliveryFilter,
  request: PageRequest,
): Promise<Page<WebhookDelivery>> {
  const values = new SqlValues();
  const where = [`d.organization_id = ${values.add(orgId)}`];
  if (filter.endpointId) where.push(`d.endpoint_id = ${values.add(filter.endpointId)}`);
  if (filter.runId) where.push(`d.run_id = ${values.add(filter.runId)}`);
  if (filter.status) where.push(`d.status = ${values.add(filter.status)}::"WebhookDeliveryStatus"`);
  return pageOfRows(
    pool,
    request,
    { select: COLUMNS, from: 'webhook_deliveries d', alias: 'd', where, values },
    delivery,
  );
}

export async function getDelivery(pool: Pool, orgId: string, id: string): Promise<WebhookDelivery | undefined> {
  const { rows } = await pool.query<DeliveryRow>({
    name: 'webhooks_delivery_get_v1',
    text: `SELECT ${COLUMNS} FROM webhook_deliveries d WHERE d.id = $1 AND d.organization_id = $2`,
    values: [id, orgId],
  });
  return rows[0] && delivery(rows[0]);
}

export type Resent = { outcome: 'resent'; attempt: number } | { outcome: 'pending' } | { outcome: 'missing' };

/**
 * Makes a settled delivery (failed, or succeeded) pending again, due now, with
 * a whole retry schedule before it fails again: the caller enqueues `attempt`.
 * A pending one is left as it is.
 */
export async function markForResend(pool: Pool, orgId: string, id: string): Promise<Resent> {
  const { rows } = await pool.query<{ attempts: number }>({
    name: 'webhooks_delivery_resend_v1',
    text: `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), schedule_start = attempts
            WHERE id = $1 AND organization_id = $2 AND status <> 'pending'
           RETURNING attempts`,
    values: [id, orgId],
  });
  if (rows[0]) return { outcome: 'resent', attempt: rows[0].attempts };
  return (await getDelivery(pool, orgId, id)) ? { outcome: 'pending' } : { outcome: 'missing' };
}
