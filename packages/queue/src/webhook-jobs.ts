import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

// The job catalog of webhook deliveries (docs/api.md#webhooks). PostgreSQL
// holds every delivery (webhook_deliveries); a job carries its id and the
// number of the attempt it makes, so that enqueueing one attempt twice adds it
// once and a job for an attempt already made finds nothing to do.

export const WEBHOOK_QUEUE = 'webhooks';

export const WEBHOOK_JOB = 'deliver';

export const DeliverWebhookJob = z.object({
  deliveryId: z.uuid(),
  attempt: z.number().int().min(0),
});
export type DeliverWebhookJob = z.infer<typeof DeliverWebhookJob>;

/** One job per (delivery, attempt). BullMQ reserves ':' in ids. */
export function deliverWebhookJobId({ deliveryId, attempt }: DeliverWebhookJob): string {
  return `${deliveryId}.${attempt}`;
}

/**
 * A receiver's failure is not a job failure: it is recorded as an attempt and
 * retried on the delivery's own schedule. Only infrastructure failures
 * (database, Redis) throw and are retried here. Finished jobs are removed so
 * that the sweep can add an id again when the delivery still needs it.
 */
export const DELIVER_WEBHOOK_JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
};
