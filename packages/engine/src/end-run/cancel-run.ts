import { ConflictError, NotFoundError } from '@weft/errors';
import type { EngineCore } from '../engine-core';
import { reportRunEnded } from '../engine-hooks';
import { uuidv7 } from '@weft/db';
import { endRun, loadNodes, lockRun, type RunRow } from '../store/run-rows';
import { withTransaction } from '../store/tx';
import { NODE, RUN } from '@weft/dag';

/**
 * DELETE /runs/{id} and /app-runs/{id}: ends an in-progress run as
 * `canceled` (running, queued or waiting for review alike). Under the run
 * lock, so it cannot interleave with a node completing: exactly one of the
 * two reaches a terminal state. Afterwards queued jobs are removed and the
 * workers executing its nodes abort them; credits not consumed are released.
 * 409 when the run has already ended, 404 when it is not the caller's.
 */
export async function cancelRun(core: EngineCore, orgId: string, runId: string, kind: 'agent' | 'app'): Promise<void> {
  let locked: RunRow | undefined;
  const inFlight = await withTransaction(core.db.pool, async (client) => {
    const run = (locked = await lockRun(client, runId, orgId));
    if (!run || run.kind !== kind) throw new NotFoundError('Run');
    if (run.status !== RUN.inProgress) throw new ConflictError(`Run has already ended (${run.status})`);
    const nodes = await loadNodes(client, run.id);
    await endRun(client, run, nodes, { status: RUN.canceled, reason: 'canceled', error: null }, uuidv7);
    return nodes.filter((n) => n.status === NODE.running);
  });
  reportRunEnded(core, locked);
  if (locked) core.changes.announce([locked]);
  if (locked?.has_webhooks) await core.webhooks.relay([runId]);
  await core.cancelBus.announce(runId);
  await core.dispatcher.drop(
    orgId,
    runId,
    inFlight.map((n) => ({ nodeId: n.node_id, attempt: n.attempt, nodeType: n.node_type })),
  );
}
