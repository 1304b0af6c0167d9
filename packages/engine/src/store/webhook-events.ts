import type { WebhookEvent } from '@weft/contracts';
import type { NodeStatus } from '@weft/dag';
import type { Pool, PoolClient } from 'pg';

// The outbox of webhooks (docs/api.md#webhooks): a run's events become
// webhook_deliveries rows in the statement or transaction that commits the
// change they report, so no event is lost by a crash after the commit and none
// is recorded for a change that rolled back. Only runs with `has_webhooks`
// (set when the run was created: its own webhook, or endpoints of its
// organization) pay for it; the workers deliver the rows (@weft/webhooks).

/** One event of a run; `node` events say which node settled and how. */
export interface RunEvent {
  event: WebhookEvent;
  nodeId?: string;
  nodeStatus?: NodeStatus;
}

/**
 * The receivers of event `ev` of run `x` (a row of runs): the run's own
 * webhook when it asked for that event, and each endpoint of its organization
 * that asks for it and was registered before the run was created.
 */
export function webhookTargetsSql(x: string, ev: string): string {
  return `SELECT NULL::uuid AS endpoint_id, ${x}.webhook AS url
             WHERE ${x}.webhook IS NOT NULL AND ${ev} = ANY(${x}.webhook_events)
           UNION ALL
          SELECT e.id, NULL FROM webhook_endpoints e
           WHERE e.organization_id = ${x}.organization_id AND ${ev} = ANY(e.events) AND e.created_at <= ${x}.created_at`;
}

/** The columns of a delivery row every insert writes (the rest are defaults). */
export const DELIVERY_COLUMNS =
  'id, organization_id, run_id, endpoint_id, url, event, run_version, node_id, node_status';

/**
 * Records `events` of a run locked in this transaction (lockRun), at the
 * version it holds: a cancel, a failure, a review decision. Nothing, and no
 * round trip, for a run without webhooks.
 */
export async function recordRunEvents(
  client: PoolClient,
  run: { id: string; version: number; has_webhooks: boolean },
  events: RunEvent[],
): Promise<void> {
  if (!run.has_webhooks || events.length === 0) return;
  await client.query({
    name: 'engine_record_run_events_v1',
    text: `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
           SELECT gen_random_uuid(), x.organization_id, x.id, t.endpoint_id, t.url, w.event, $2, w.node_id, w.node_status
             FROM runs x
             CROSS JOIN unnest($3::"WebhookEvent"[], $4::text[], $5::"NodeStatus"[]) AS w(event, node_id, node_status)
             CROSS JOIN LATERAL (${webhookTargetsSql('x', 'w.event')}) t
            WHERE x.id = $1`,
    values: [
      run.id,
      run.version,
      events.map((e) => e.event),
      events.map((e) => e.nodeId ?? null),
      events.map((e) => e.nodeStatus ?? null),
    ],
  });
}

/**
 * Deliveries of these runs waiting for their first attempt: what a commit
 * just recorded, for the caller to enqueue (and any an earlier enqueue left
 * behind, which enqueueing again adds once).
 */
export async function newDeliveries(pool: Pool, runIds: string[]): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>({
    name: 'engine_new_deliveries_v1',
    text: `SELECT id FROM webhook_deliveries WHERE run_id = ANY($1::uuid[]) AND status = 'pending' AND attempts = 0`,
    values: [runIds],
  });
  return rows.map((r) => r.id);
}
