import type { FlowOutput } from '@weft/contracts';
import { isRequiredInput } from '@weft/nodes';
import type { PoolClient } from 'pg';
import { commitTransition } from './commit-transition';
import type { LoadedVersion } from '@weft/catalog';
import type { NodeRow, RunRow } from './run-rows';
import { planTransition, type Dispatch } from '@weft/dag';

/**
 * After a node's state changed inside a transaction holding the run's lock
 * (a review decision, a run created complete): dispatches the nodes now
 * ready, writes progress and current_node, or completes the run when every
 * node has, in the transaction that commits anyway. A node completion in a
 * worker does the same without a lock (execute-node.ts).
 *
 * `running` means dispatched: queued or executing. It is set here, by the
 * upstream commit, rather than by a separate "started" commit of the worker.
 */
export async function commitUnderLock(
  client: PoolClient,
  run: RunRow,
  nodes: NodeRow[],
  version: LoadedVersion,
  resultSpec: FlowOutput[],
  startedAt: Date | null,
): Promise<Dispatch[]> {
  const transition = planTransition(run, nodes, version.graph, resultSpec, isRequiredInput);
  // Under the lock, the version lockRun returned is current: the write cannot miss.
  const applied = await commitTransition(client, { run, settled: [], transition, startedAt });
  if (!applied) throw new Error(`Run ${run.id} changed under its lock`);
  return transition.ready;
}
