import type { ExecuteNodeJob } from '@weft/queue';
import { executeNodeJobId } from '@weft/queue';
import type { Logger } from 'pino';
import type { RunQueues } from '@weft/engine';
import { isDefinedNodeType, laneOf } from '@weft/nodes';

/**
 * Renews the slots of the jobs this process is executing, three times per
 * lease, so that a node running longer than the lease keeps its slot while a
 * killed process's slots lapse. A failed renewal is retried at the next tick.
 */
export function startSlotRenewal(slots: RunQueues['slots'], executing: ReadonlySet<ExecuteNodeJob>, logger: Logger) {
  const leaseMs = Math.min(slots.light.leaseMs, slots.heavy.leaseMs);
  const timer = setInterval(
    () => {
      const held = { light: [] as { orgId: string; jobId: string }[], heavy: [] as { orgId: string; jobId: string }[] };
      for (const job of executing) {
        if (!job.organizationId) continue;
        const lane = job.nodeType && isDefinedNodeType(job.nodeType) ? laneOf(job.nodeType) : 'light';
        held[lane].push({ orgId: job.organizationId, jobId: executeNodeJobId(job) });
      }
      Promise.all([slots.light.renew(held.light), slots.heavy.renew(held.heavy)]).catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'renewing organization slots failed; retrying at the next tick');
      });
    },
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
