import type { ExecuteNodeJob } from '@weft/queue';
import { executeNodeJobId } from '@weft/queue';
import type { Logger } from 'pino';
import type { OrgSlots } from '@weft/engine';

/**
 * Renews the slots of the jobs this process is executing, three times per
 * lease, so that a node running longer than the lease keeps its slot while a
 * killed process's slots lapse. A failed renewal is retried at the next tick.
 */
export function startSlotRenewal(slots: OrgSlots, executing: ReadonlySet<ExecuteNodeJob>, logger: Logger) {
  const timer = setInterval(
    () => {
      const held = [...executing].flatMap((job) =>
        job.organizationId ? [{ orgId: job.organizationId, jobId: executeNodeJobId(job) }] : [],
      );
      slots.renew(held).catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'renewing organization slots failed; retrying at the next tick');
      });
    },
    Math.max(100, Math.floor(slots.leaseMs / 3)),
  );
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
