import type { FlowOutput, RunResult } from '@weft/contracts';
import type { PoolClient } from 'pg';
import type { LoadedVersion } from './flow-cache';
import { uuidv7 } from './ids';
import { actualCost, settleBalanceAtCommit, settlementLines, type NodeRow, type RunRow } from './run-rows';

/** A node made ready by a transition: enqueue it once the transaction has committed. */
export interface Dispatch {
  nodeId: string;
  attempt: number;
  nodeType: string;
}

const ASSET_RESULT_TYPES = new Set(['images', 'videos', 'audio', 'files']);

/**
 * After a node's state changed (inside the run's lock): marks the nodes whose
 * upstream nodes have all completed as dispatched, writes progress and
 * current_node, or completes the run when every node has. All of it lands in
 * the transaction that had to commit anyway, so a node costs one commit.
 *
 * `running` means dispatched: queued or executing. It is set here, by the
 * upstream commit, rather than by a separate "started" commit of the worker.
 */
export async function advance(
  client: PoolClient,
  run: RunRow,
  nodes: NodeRow[],
  version: LoadedVersion,
  resultSpec: FlowOutput[],
  startedAt: Date | null,
): Promise<Dispatch[]> {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const completed = new Set(nodes.filter((n) => n.status === 'completed').map((n) => n.node_id));
  const ready = version.graph.readyNodes(completed).filter((id) => byId.get(id)?.status === 'pending');
  for (const id of ready) byId.get(id)!.status = 'running';

  const total = nodes.length;
  if (completed.size === total) {
    await completeRun(client, run, nodes, resultSpec, startedAt);
    return [];
  }

  // current_node: the first dispatched node in flow order (null while only reviews are open).
  const current = version.graph.nodeIds().find((id) => byId.get(id)?.status === 'running');
  // Dispatching the ready nodes and the run's progress: one statement, one round trip.
  await client.query({
    name: 'engine_dispatch_and_progress_v1',
    text: `WITH dispatched AS (
             UPDATE node_executions SET status = 'running', started_at = now()
              WHERE run_id = $1 AND node_id = ANY($6::text[]) AND status = 'pending'
           )
           UPDATE runs SET progress = $2, current_node = $3, awaiting_human_review = $4,
                  started_at = COALESCE(started_at, $5), updated_at = now()
            WHERE id = $1`,
    values: [
      run.id,
      total === 0 ? 0 : completed.size / total,
      current ? byId.get(current)!.node_type : null,
      nodes.some((n) => n.status === 'waiting_review'),
      startedAt,
      ready,
    ],
  });
  return ready.map((id) => ({ nodeId: id, attempt: byId.get(id)!.attempt, nodeType: byId.get(id)!.node_type }));
}

async function completeRun(
  client: PoolClient,
  run: RunRow,
  nodes: NodeRow[],
  resultSpec: FlowOutput[],
  startedAt: Date | null,
): Promise<void> {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const results: RunResult[] = resultSpec.map((spec) => ({
    id: spec.id,
    type: spec.type,
    value: (byId.get(spec.id)?.output?.value ?? null) as RunResult['value'],
    description: spec.description,
  }));
  // Produced assets are registered as intermediate; the ones the results name become outputs (extensions.md 7).
  const outputAssets = results.flatMap((r) =>
    ASSET_RESULT_TYPES.has(r.type) && Array.isArray(r.value) ? r.value.filter((v) => typeof v === 'string') : [],
  );
  const cost = actualCost(run, nodes);
  // The run's completion, its output assets and its settlement ledger lines in one statement.
  const ledger = settlementLines(run, cost, uuidv7);
  await client.query({
    name: 'engine_complete_run_v2',
    text: `WITH outputs AS (
             UPDATE assets SET asset_type = 'output', updated_at = now()
              WHERE run_id = $1 AND id = ANY($5::uuid[]) AND asset_type = 'intermediate'
           ), ledger AS (
             INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
             SELECT unnest($6::uuid[]), $7::uuid, $1, unnest($8::"LedgerKind"[]), unnest($9::int[]), unnest($10::text[])
           )
           UPDATE runs SET status = 'completed', progress = 1, current_node = NULL, awaiting_human_review = false,
                  results = $2, cost = $3, started_at = COALESCE(started_at, $4), completed_at = now(), updated_at = now()
            WHERE id = $1`,
    values: [
      run.id,
      JSON.stringify(results),
      cost,
      startedAt,
      outputAssets,
      ledger.ids,
      run.organization_id,
      ledger.kinds,
      ledger.amounts,
      ledger.notes,
    ],
  });
  settleBalanceAtCommit(client, run, cost);
  run.ended = { status: 'completed', failureReason: null, cost };
}
