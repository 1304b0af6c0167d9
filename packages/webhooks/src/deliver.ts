import type { WebhookEvent } from '@weft/contracts';
import type { Keyring } from '@weft/credentials';
import { readRunRecord } from '@weft/engine';
import type { NodeStatus } from '@weft/dag';
import type { DeliverWebhookJob, WebhookJobProducer } from '@weft/queue';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { retryDelay } from './schedule';
import { endpointContext, openSecret, organizationSecret } from './secrets';
import { postWebhook, type AttemptOutcome } from './send';
import { signedHeaders } from './signing';

// One attempt at one delivery (a job of the webhooks queue): sign, send,
// record the attempt, and schedule the next one or settle the delivery.

export interface DeliveryDeps {
  pool: Pool;
  /** CREDENTIALS_KEY, which opens the signing secrets; without it nothing can be signed. */
  keyring: Keyring | undefined;
  /** The guarded fetch (outbound rules, OUTBOUND_ALLOWED_HOSTS). */
  fetch: typeof globalThis.fetch;
  /** Delays before each retry, in milliseconds (schedule.ts). */
  schedule: readonly number[];
  jobs: WebhookJobProducer;
  logger: Logger;
  /** Limit of one attempt, redirects included. */
  timeoutMs: number;
}

/** docs/api.md#webhooks: a receiver has this long to answer 2xx. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
export const MAX_REDIRECTS = 5;

interface DueDelivery {
  id: string;
  organization_id: string;
  run_id: string;
  endpoint_id: string | null;
  event: WebhookEvent;
  node_id: string | null;
  node_status: NodeStatus | null;
  attempts: number;
  schedule_start: number;
  body: string | null;
  created_at: Date;
  url: string;
  key_version: number | null;
  sealed: Buffer | null;
}

/** The delivery, when this job's attempt is still the one to make (pending, that many attempts made). */
async function due(pool: Pool, job: DeliverWebhookJob): Promise<DueDelivery | undefined> {
  const { rows } = await pool.query<DueDelivery>({
    name: 'webhooks_due_delivery_v1',
    text: `SELECT d.id, d.organization_id, d.run_id, d.endpoint_id, d.event, d.node_id, d.node_status, d.attempts,
                  d.schedule_start, d.body, d.created_at, COALESCE(d.url, e.url) AS url, e.key_version, e.sealed
             FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.id = $1 AND d.status = 'pending' AND d.attempts = $2`,
    values: [job.deliveryId, job.attempt],
  });
  return rows[0];
}

/**
 * The body: `{type, timestamp, data}`, `data` the run as GET /runs/{id} shows
 * it when the event is first sent (with the node a `node` event is about).
 * Built once and stored, so that every attempt sends the same bytes.
 */
async function bodyOf(pool: Pool, d: DueDelivery): Promise<string | undefined> {
  if (d.body !== null) return d.body;
  const run = await readRunRecord(pool, d.organization_id, d.run_id);
  if (!run) return undefined;
  const data = d.event === 'node' ? { ...run, node: { id: d.node_id, status: d.node_status } } : run;
  const built = JSON.stringify({ type: `run.${d.event}`, timestamp: d.created_at.toISOString(), data });
  const { rows } = await pool.query<{ body: string }>({
    name: 'webhooks_store_body_v1',
    text: 'UPDATE webhook_deliveries SET body = COALESCE(body, $2) WHERE id = $1 RETURNING body',
    values: [d.id, built],
  });
  return rows[0]?.body;
}

async function secretOf(deps: DeliveryDeps, d: DueDelivery): Promise<string> {
  const keyring = deps.keyring!;
  if (d.endpoint_id === null) return organizationSecret(deps.pool, keyring, d.organization_id);
  return openSecret(
    keyring,
    { key_version: d.key_version!, sealed: d.sealed! },
    endpointContext(d.organization_id, d.endpoint_id),
  );
}

/** What happens after attempt number `made` (counted from 1) of `d`. */
function nextStep(deps: DeliveryDeps, d: DueDelivery, made: number, outcome: AttemptOutcome) {
  if (outcome.ok) return { status: 'succeeded' as const, delayMs: undefined };
  const delayMs = retryDelay(deps.schedule, made - d.schedule_start - 1);
  return delayMs === undefined ? { status: 'failed' as const, delayMs } : { status: 'pending' as const, delayMs };
}

/**
 * Makes the attempt `job` names, if it is still due. Database and Redis
 * failures throw (the job is retried); whatever the receiver does is recorded
 * as the attempt's outcome and never throws.
 */
export async function deliverAttempt(deps: DeliveryDeps, job: DeliverWebhookJob): Promise<AttemptOutcome | undefined> {
  const d = await due(deps.pool, job);
  if (!d) return undefined;
  const at = new Date();
  let outcome: AttemptOutcome;
  const body = await bodyOf(deps.pool, d);
  if (body === undefined) return undefined;
  if (!deps.keyring) {
    outcome = {
      ok: false,
      statusCode: null,
      error: 'Not sent: this deployment has no CREDENTIALS_KEY to sign with',
      durationMs: 0,
    };
  } else {
    const headers = signedHeaders(await secretOf(deps, d), d.id, body, at);
    outcome = await postWebhook(deps.fetch, {
      url: d.url,
      headers,
      body,
      timeoutMs: deps.timeoutMs,
      maxRedirects: MAX_REDIRECTS,
    });
  }
  const made = d.attempts + 1;
  const next = nextStep(deps, d, made, outcome);
  const { rowCount } = await deps.pool.query({
    name: 'webhooks_record_attempt_v1',
    text: `WITH attempt AS (
             INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms)
             SELECT $1, $2 + 1, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1)
             ON CONFLICT DO NOTHING
           )
           UPDATE webhook_deliveries
              SET attempts = $2 + 1, status = $7::"WebhookDeliveryStatus",
                  next_attempt_at = CASE WHEN $8::int IS NULL THEN NULL ELSE now() + make_interval(secs => $8::int / 1000.0) END
            WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
    values: [
      d.id,
      d.attempts,
      at,
      outcome.statusCode,
      outcome.error,
      outcome.durationMs,
      next.status,
      next.delayMs ?? null,
    ],
  });
  if (rowCount === 1 && next.status === 'pending') {
    await deps.jobs.enqueue([{ deliveryId: d.id, attempt: made, delayMs: next.delayMs }]);
  }
  if (!outcome.ok) {
    deps.logger.info(
      {
        deliveryId: d.id,
        runId: d.run_id,
        attempt: made,
        status: next.status,
        statusCode: outcome.statusCode,
        error: outcome.error,
      },
      'webhook attempt failed',
    );
  }
  return outcome;
}
