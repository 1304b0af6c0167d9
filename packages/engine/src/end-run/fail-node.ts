import type { NodeFailure } from '@weft/nodes';
import type { ExecuteNodeJob } from '@weft/queue';
import { markNodeFailed } from '@weft/telemetry';
import type { EngineCore } from '../engine-core';
import { reportRunEnded } from '../engine-hooks';
import { uuidv7 } from '@weft/db';
import { endRun, loadNodes, lockRun, type NodeRow, type RunRow } from '../store/run-rows';
import { failNodeAttempt } from '../store/node-executions';
import { Rollback, withTransaction } from '../store/tx';
import { NODE, RUN } from '@weft/dag';

/**
 * A node failed: the node is marked failed (if this attempt still holds it),
 * the run ends `failed` with the failure's reason and safe message, open
 * work is canceled and credits settled. Other nodes of the run still
 * executing on any worker are told to abort. `spanMarked`: the node's span
 * was already marked failed (an instant node, failed after its chain's commit).
 */
export async function failNode(
  core: EngineCore,
  job: ExecuteNodeJob,
  failure: NodeFailure,
  options: { spanMarked?: boolean } = {},
): Promise<void> {
  let locked: RunRow | undefined;
  const ended = await withTransaction(core.db.pool, async (client) => {
    const run = (locked = await lockRun(client, job.runId));
    if (!run || run.status !== RUN.inProgress) throw new Rollback('run ended');
    if (!(await failNodeAttempt(client, run, job, failure.message))) throw new Rollback('node already settled');
    const nodes: NodeRow[] = await loadNodes(client, run.id);
    const end = { status: RUN.failed, reason: failure.reason, error: failure.message, failedNode: job.nodeId };
    await endRun(client, run, nodes, end, uuidv7);
    return nodes.filter((n) => n.status === NODE.running);
  }).catch((err: unknown) => {
    if (err instanceof Rollback) return undefined;
    throw err;
  });
  reportRunEnded(core, locked);
  if (ended && locked) core.changes.announce([locked]);
  if (ended && locked?.has_webhooks) await core.webhooks.relay([job.runId]);
  if (!options.spanMarked) markNodeFailed(failure.reason, failure.message);
  // One line per node failure (provider errors, timeouts, bad input); its run and
  // node come from the log context of the job being processed.
  if (ended) core.logger.info({ reason: failure.reason, error: failure.message }, 'node failed; its run ended');
  if (ended && ended.length > 0 && locked) {
    await core.cancelBus.announce(job.runId);
    await core.dispatcher.drop(
      locked.organization_id,
      job.runId,
      ended.map((n) => ({ nodeId: n.node_id, attempt: n.attempt, nodeType: n.node_type })),
    );
  }
}
