import { envInt, envString } from '@weft/config';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './schedule';

/** The settings of the workers' webhook deliveries (docs/configuration.md). */
export const webhookEnvShape = {
  /** Deliveries one worker process makes at once: a slow receiver holds one of them for at most 15 s. */
  WEBHOOK_CONCURRENCY: envInt(1, 10_000).default(100),
  /** The delays before each retry of a delivery without a 2xx, each ±20 % (schedule.ts); then it fails. */
  WEBHOOK_RETRY_SCHEDULE: envString()
    .default(DEFAULT_RETRY_SCHEDULE)
    .superRefine((text, ctx) => {
      try {
        parseRetrySchedule(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  /** How often pending deliveries whose job went missing are looked for, and how late they must be. */
  WEBHOOK_SWEEP_INTERVAL_MS: envInt(100, 3_600_000).default(30_000),
};
