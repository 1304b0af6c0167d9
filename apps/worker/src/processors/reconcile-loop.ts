import type { Engine } from '@weft/engine';
import type { Logger } from 'pino';

/**
 * The reconciler on a plain timer rather than a BullMQ repeatable job: it must
 * keep working after Redis lost its data (which would take a repeatable job's
 * schedule with it), and running it in every worker at once is harmless
 * (enqueues are idempotent).
 */
export function startReconcileLoop(engine: Engine, intervalMs: number, staleMs: number, logger: Logger) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = engine.reconcile(staleMs).catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'reconcile pass failed; retrying at the next tick');
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
