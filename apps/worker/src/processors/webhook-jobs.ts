import {
  closeWorker,
  countProcessorCalls,
  DeliverWebhookJob,
  WEBHOOK_QUEUE,
  WORKER_RUN_RETRY_DELAY_MS,
  type WebhookJobProducer,
} from '@weft/queue';
import { deliverAttempt, sweepDeliveries, type DeliveryDeps } from '@weft/webhooks';
import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';

export interface WebhookProcessorOptions {
  /** The worker's BullMQ connection (the composition root's). */
  connection: RedisClient;
  redisPrefix: string;
  logger: Logger;
  /** Attempts made at once: a receiver that takes its full 15 s holds one, never the others. */
  concurrency: number;
  /** A job not renewed for this long (its worker died) is taken over by another worker. */
  lockDurationMs: number;
  deps: DeliveryDeps;
  jobs: WebhookJobProducer;
  /** How often the sweep runs, and how late a pending delivery must be for it to act. */
  sweepIntervalMs: number;
}

/**
 * The processor of the `webhooks` queue, and the sweep that enqueues again the
 * deliveries whose job went missing. The sweep runs on a plain timer, not as
 * a repeatable job, so that it outlives a Redis that lost its data.
 */
export function startWebhookProcessor(options: WebhookProcessorOptions): { close(): Promise<void> } {
  const { logger } = options;
  const counted = countProcessorCalls((job: Job) =>
    deliverAttempt(options.deps, DeliverWebhookJob.parse(job.data)).then(() => undefined),
  );
  const worker = new Worker(WEBHOOK_QUEUE, counted.processor, {
    connection: options.connection,
    prefix: options.redisPrefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.lockDurationMs,
    runRetryDelay: WORKER_RUN_RETRY_DELAY_MS,
  });
  worker.on('error', (err) => logger.warn({ err: err.message }, 'webhook worker error'));
  worker.on('failed', (job, err) =>
    logger.warn(
      { err: err.message, deliveryId: (job?.data as { deliveryId?: string })?.deliveryId },
      'webhook job failed',
    ),
  );

  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweepDeliveries(options.deps.store.pool, options.jobs, options.sweepIntervalMs)
      .then((count) => {
        if (count > 0) logger.info({ count }, 'webhook sweep enqueued deliveries whose job was missing');
      })
      .catch((err: unknown) =>
        logger.warn({ err: (err as Error).message }, 'webhook sweep failed; retrying at the next tick'),
      );
  }, options.sweepIntervalMs);
  timer.unref();

  return {
    async close() {
      clearInterval(timer);
      await sweeping;
      await closeWorker(worker, counted.inFlight);
    },
  };
}
