import { deliverWebhookJobId, type WebhookJobProducer } from '@weft/queue';
import type { Pool } from 'pg';

/**
 * Pending deliveries whose attempt has been due for `staleMs` are enqueued
 * again when their job is missing: it was never added (the process died
 * between its commit and the enqueue, Redis was away) or Redis lost it (a
 * restart without persistence, FLUSHALL). A job that failed for good (the
 * database was away through all its retries) is replaced. Enqueueing is
 * idempotent, so every worker may sweep at once. Returns how many it enqueued.
 */
export async function sweepDeliveries(
  pool: Pool,
  jobs: WebhookJobProducer,
  staleMs: number,
  limit = 500,
): Promise<number> {
  const { rows } = await pool.query<{ id: string; attempts: number }>({
    name: 'webhooks_sweep_v1',
    text: `SELECT id, attempts FROM webhook_deliveries
            WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::float8 / 1000)
            ORDER BY next_attempt_at LIMIT $2`,
    values: [staleMs, limit],
  });
  const lost = [];
  for (const row of rows) {
    const attempt = { deliveryId: row.id, attempt: row.attempts };
    const job = await jobs.queue.getJob(deliverWebhookJobId(attempt));
    if (job && (await job.getState()) === 'failed') await job.remove();
    else if (job) continue;
    lost.push(attempt);
  }
  await jobs.enqueue(lost);
  return lost.length;
}
