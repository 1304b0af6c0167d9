import type { FlowOutput, RunResult } from '@weft/contracts';
import type { LoadedVersion } from './flow-cache';
import { actualCost, type NodeRow, type RunRow } from './run-rows';

/** A node made ready by a transition: enqueue it once the transaction has committed. */
export interface Dispatch {
  nodeId: string;
  attempt: number;
  nodeType: string;
}

/** What follows from a run's node rows once a node's state changed: computed here, written by commitTransition. */
export interface Transition {
  /** Pending nodes whose upstream nodes have all completed: they become `running` (dispatched). */
  ready: Dispatch[];
  progress: number;
  /** The type of the first dispatched node in flow order (null while only reviews are open). */
  currentNode: string | null;
  awaitingReview: boolean;
  /** Set when every node has completed: the run completes with these results and this cost. */
  completion: { results: RunResult[]; cost: number; outputAssetIds: string[] } | null;
}

const ASSET_RESULT_TYPES = new Set(['images', 'videos', 'audio', 'files']);

/**
 * The transition of a run whose node rows are now `nodes`. Pure: the caller
 * holds the run's lock or commits on the condition that the run's version is
 * still the one `nodes` was read at. Marks the ready nodes `running` in `nodes`.
 */
export function planTransition(
  run: RunRow,
  nodes: NodeRow[],
  version: LoadedVersion,
  resultSpec: FlowOutput[],
): Transition {
  return transitionOf(run, nodes, dispatchReady(nodes, version), version, resultSpec);
}

/** Marks `running` (dispatched) the pending nodes whose upstream nodes have all completed, and returns them. */
export function dispatchReady(nodes: NodeRow[], version: LoadedVersion): Dispatch[] {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const completed = new Set(nodes.filter((n) => n.status === 'completed').map((n) => n.node_id));
  const ready: Dispatch[] = [];
  for (const id of version.graph.readyNodes(completed)) {
    const row = byId.get(id);
    if (row?.status !== 'pending') continue;
    row.status = 'running';
    ready.push({ nodeId: id, attempt: row.attempt, nodeType: row.node_type });
  }
  return ready;
}

/** The transition of a run whose rows are `nodes`, `dispatched` being the nodes it marked `running`. */
export function transitionOf(
  run: RunRow,
  nodes: NodeRow[],
  dispatched: Dispatch[],
  version: LoadedVersion,
  resultSpec: FlowOutput[],
): Transition {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const completed = nodes.filter((n) => n.status === 'completed').length;
  const total = nodes.length;
  if (completed === total) {
    return {
      ready: [],
      progress: 1,
      currentNode: null,
      awaitingReview: false,
      completion: completionOf(run, byId, nodes, resultSpec),
    };
  }
  const current = version.graph.nodeIds().find((id) => byId.get(id)?.status === 'running');
  return {
    ready: dispatched,
    progress: total === 0 ? 0 : completed / total,
    currentNode: current ? byId.get(current)!.node_type : null,
    awaitingReview: nodes.some((n) => n.status === 'waiting_review'),
    completion: null,
  };
}

function completionOf(
  run: RunRow,
  byId: Map<string, NodeRow>,
  nodes: NodeRow[],
  resultSpec: FlowOutput[],
): NonNullable<Transition['completion']> {
  const results: RunResult[] = resultSpec.map((spec) => ({
    id: spec.id,
    type: spec.type,
    value: (byId.get(spec.id)?.output?.value ?? null) as RunResult['value'],
    description: spec.description,
  }));
  // Produced assets are registered as intermediate; the ones the results name become outputs (extensions.md 7).
  const outputAssetIds = results.flatMap((r): string[] =>
    ASSET_RESULT_TYPES.has(r.type) && Array.isArray(r.value)
      ? (r.value as unknown[]).filter((v): v is string => typeof v === 'string')
      : [],
  );
  return { results, cost: actualCost(run, nodes), outputAssetIds };
}
