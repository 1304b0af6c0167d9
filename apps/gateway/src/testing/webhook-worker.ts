import { createDb } from '@weft/db';
import { redisTargetOf } from '@weft/queue';
import { parseRetrySchedule } from '@weft/webhooks';
import { startWebhookWorker } from '@weft/worker';
import pino from 'pino';
import type { TestGateway } from './test-gateway';

export interface TestWebhookSettings {
  /** WEBHOOK_RETRY_SCHEDULE: short, so a test sees a delivery through its retries. */
  retrySchedule: string;
  outboundAllowList: string[];
  sweepIntervalMs: number;
  concurrency: number;
}

const DEFAULTS: TestWebhookSettings = {
  retrySchedule: '300ms,600ms',
  outboundAllowList: ['127.0.0.1'],
  sweepIntervalMs: 500,
  concurrency: 20,
};

/** The webhook deliveries of a worker, in this process, over the test gateway's services and CREDENTIALS_KEY. */
export async function startTestWebhookWorker(gw: TestGateway, overrides: Partial<TestWebhookSettings> = {}) {
  const settings = { ...DEFAULTS, ...overrides };
  const db = createDb({ databaseUrl: gw.config.DATABASE_URL, poolSize: 5 });
  const worker = startWebhookWorker({
    db,
    redis: redisTargetOf(gw.config),
    redisPrefix: gw.config.REDIS_PREFIX,
    logger: pino({ level: 'silent' }),
    keyring: gw.deps.webhookKeyring,
    outboundAllowList: settings.outboundAllowList,
    concurrency: settings.concurrency,
    lockDurationMs: 30_000,
    retrySchedule: parseRetrySchedule(settings.retrySchedule),
    sweepIntervalMs: settings.sweepIntervalMs,
  });
  return {
    async close() {
      await worker.close();
      await db.close();
    },
  };
}
