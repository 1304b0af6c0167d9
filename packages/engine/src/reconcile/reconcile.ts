import { NodeFailure } from '@weft/nodes';
import { executeNodeJobId } from '@weft/queue';
import { withLogContext } from '@weft/telemetry';
import type { EngineCore } from '../engine-core';
import { failNode } from '../end-run/fail-node';
import { staleDispatchedNodes } from '../store/node-executions';

export interface ReconcileReport {
  /** Dispatched nodes whose job had vanished (Redis lost it, or the enqueue after commit never happened). */
  requeued: number;
  /** Runs ended because a node's job failed for good (BullMQ's retries or stalled limit exhausted). */
  failed: number;
}

/**
 * The reconciler: PostgreSQL says which nodes are dispatched; BullMQ should
 * hold a job for each. For runs that have not moved for `staleMs`, every
 * dispatched node whose job is missing is enqueued again (same deterministic
 * id, so racing reconcilers add it once), and one whose job failed for good
 * ends its run with `unknown`. A node waiting for one of its organization's
 * slots has no job by design: it is left waiting, and lapsed slots (a killed
 * worker's) are handed to the waiting. Runs parked on a review have no
 * dispatched node and are left alone. Safe to run in every worker process at once.
 */
export async function reconcile(core: EngineCore, staleMs: number, limit = 500): Promise<ReconcileReport> {
  const rows = await staleDispatchedNodes(core.db.pool, staleMs, limit);
  const report: ReconcileReport = { requeued: 0, failed: 0 };
  const waiting = new Set<string>();
  // Every node is looked at concurrently: a backlog of nodes waiting for slots is
  // mostly what a pass finds, and one round trip per pass, not per node, keeps it
  // from costing its runs CPU. A waiting node is recognised first, with one HEXISTS.
  const found = await Promise.all(
    rows.map(async (node) => {
      const data = { runId: node.run_id, nodeId: node.node_id, attempt: node.attempt };
      if (await core.dispatcher.waitsForSlot(node.organization_id, { ...data, nodeType: node.node_type })) {
        return { node, data, state: 'waiting' as const };
      }
      const job = await core.dispatcher.queueFor(node.node_type, node.organization_id).getJob(executeNodeJobId(data));
      if (!job) return { node, data, state: 'missing' as const };
      return {
        node,
        data,
        state: (await job.getState()) === 'failed' ? ('failed' as const) : ('queued' as const),
        job,
      };
    }),
  );
  for (const { node, data, state, job } of found) {
    if (state === 'waiting') {
      waiting.add(node.organization_id);
    } else if (state === 'missing') {
      await core.dispatcher.dispatch(node.organization_id, node.run_id, [
        { nodeId: node.node_id, attempt: node.attempt, nodeType: node.node_type },
      ]);
      report.requeued++;
    } else if (state === 'failed') {
      core.logger.error({ ...data, reason: job?.failedReason }, 'node job failed for good; ending its run');
      await withLogContext({ runId: node.run_id, nodeId: node.node_id }, () =>
        failNode(core, data, new NodeFailure('unknown', `Node '${node.node_id}' could not be executed`)),
      );
      await core.dispatcher.finished({ ...data, nodeType: node.node_type, organizationId: node.organization_id });
      report.failed++;
    }
  }
  for (const orgId of waiting) await core.dispatcher.pump(orgId);
  if (report.requeued || report.failed) core.logger.info(report, 'reconciled runs');
  return report;
}
