import { Queue } from 'bullmq';
import type { RedisClient } from './connections';
import type { Logger } from 'pino';
import {
  DELIVER_WEBHOOK_JOB_OPTIONS,
  deliverWebhookJobId,
  WEBHOOK_JOB,
  WEBHOOK_QUEUE,
  type DeliverWebhookJob,
} from './webhook-jobs';

export interface WebhookAttemptJob extends DeliverWebhookJob {
  /** Milliseconds from now until the attempt is due (0 or absent: at once). */
  delayMs?: number;
}

export interface WebhookJobProducer {
  /**
   * Enqueues delivery attempts. Never throws: every delivery is in PostgreSQL,
   * and one whose job was not added is found and enqueued by the workers' sweep.
   */
  enqueue(jobs: WebhookAttemptJob[]): Promise<void>;
  /** The queue itself, for the sweep's look-ups (a producer adds; it never processes). */
  readonly queue: Queue;
  close(): Promise<void>;
}

export function createWebhookJobProducer(connection: RedisClient, prefix: string, logger: Logger): WebhookJobProducer {
  const queue = new Queue(WEBHOOK_QUEUE, { connection, prefix });
  queue.on('error', (err) => logger.warn({ err: err.message }, 'webhook queue error'));
  return {
    queue,
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      try {
        await queue.addBulk(
          jobs.map(({ deliveryId, attempt, delayMs }) => ({
            name: WEBHOOK_JOB,
            data: { deliveryId, attempt },
            opts: {
              ...DELIVER_WEBHOOK_JOB_OPTIONS,
              jobId: deliverWebhookJobId({ deliveryId, attempt }),
              ...(delayMs && delayMs > 0 ? { delay: Math.ceil(delayMs) } : {}),
            },
          })),
        );
      } catch (err) {
        logger.warn(
          { err: (err as Error).message, count: jobs.length },
          'could not enqueue webhook deliveries; the sweep will',
        );
      }
    },
    close: () => queue.close(),
  };
}
