import type { Engine } from '@weft/engine';
import type { Logger } from 'pino';

/**
 * The sweep that cancels at their providers the jobs ended runs left running
 * (@weft/engine end-run/cancel-provider-jobs.ts), on a plain timer like the
 * reconciler: every worker runs it, and their claims skip each other's jobs.
 */
export function startProviderCancelLoop(engine: Engine, intervalMs: number, logger: Logger) {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    // A pass still cancelling (a provider slow to answer) is not doubled.
    if (running) return;
    running = engine
      .cancelProviderJobs()
      .catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'provider cancel sweep failed; retrying at the next tick');
      })
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
