import type { WebhookJobProducer } from '@weft/queue';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { newDeliveries } from '../store/webhook-events';

/**
 * Hands the webhook deliveries a commit recorded (store/webhook-events.ts) to
 * the workers, once committed. Never throws: the delivery rows are the
 * record, and one whose job was not added (Redis away, the process gone right
 * after its commit) is found by the workers' sweep.
 */
export class WebhookRelay {
  constructor(
    private readonly pool: Pool,
    private readonly jobs: WebhookJobProducer | undefined,
    private readonly logger: Logger,
  ) {}

  async relay(runIds: string[]): Promise<void> {
    if (!this.jobs || runIds.length === 0) return;
    try {
      const ids = await newDeliveries(this.pool, runIds);
      await this.jobs.enqueue(ids.map((deliveryId) => ({ deliveryId, attempt: 0 })));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not enqueue webhook deliveries; the sweep will');
    }
  }
}
