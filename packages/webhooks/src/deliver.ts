import type { Keyring } from '@weft/credentials';
import type { DeliverWebhookJob, WebhookJobProducer } from '@weft/queue';
import type { DeliveryStore, DueDelivery } from './delivery-store';
import type { Logger } from 'pino';
import { retryDelay } from './schedule';
import { endpointContext, openSecret, organizationContext, organizationSecret } from './secrets';
import { postWebhook, type AttemptOutcome } from './send';
import { signedHeaders } from './signing';

// One attempt at one delivery (a job of the webhooks queue): sign, send,
// record the attempt, and schedule the next one or settle the delivery.

export interface DeliveryDeps {
  store: DeliveryStore;
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

/**
 * The body: `{type, timestamp, data}`, `data` the run as GET /runs/{id} shows
 * it when the event is first sent (with the node a `node` event is about).
 * Built once and stored, so that every attempt sends the same bytes.
 */
async function bodyOf(store: DeliveryStore, d: DueDelivery): Promise<string | undefined> {
  if (d.body !== null) return d.body;
  const run = await store.runRecord({ organizationId: d.organization_id, runId: d.run_id });
  if (!run) return undefined;
  const data = d.event === 'node' ? { ...run, node: { id: d.node_id, status: d.node_status } } : run;
  const built = JSON.stringify({ type: `run.${d.event}`, timestamp: d.created_at.toISOString(), data });
  return store.storeBody(d.id, built);
}

async function secretOf(deps: DeliveryDeps, d: DueDelivery): Promise<string> {
  const keyring = deps.keyring!;
  const sealed = d.sealed === null ? undefined : { key_version: d.key_version!, sealed: d.sealed };
  if (d.endpoint_id !== null) return openSecret(keyring, sealed!, endpointContext(d.organization_id, d.endpoint_id));
  if (sealed) return openSecret(keyring, sealed, organizationContext(d.organization_id));
  return organizationSecret(deps.store.pool, keyring, d.organization_id);
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
  const d = await deps.store.dueDelivery(job);
  if (!d) return undefined;
  const at = new Date();
  let outcome: AttemptOutcome;
  const body = await bodyOf(deps.store, d);
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
  const applied = await deps.store.recordAttempt({
    deliveryId: d.id,
    attemptsBefore: d.attempts,
    at,
    statusCode: outcome.statusCode,
    error: outcome.error,
    durationMs: outcome.durationMs,
    status: next.status,
    delayMs: next.delayMs ?? null,
  });
  if (applied && next.status === 'pending') {
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
