import type { FlowOutput, RunResult } from '@weft/contracts';
import { nextMoves } from '@weft/dag';
import { isRequiredInput } from '@weft/nodes';
import type { LoadedVersion } from './flow-cache';
import { actualCost, nodeCharges, type NodeCharge, type NodeRow, type RunRow } from './run-rows';

/** A node made ready by a transition: enqueue it once the transaction has committed. */
export interface Dispatch {
  nodeId: string;
  attempt: number;
  nodeType: string;
}

/** What a transition does to pending nodes. */
export interface NodeMoves {
  /** Pending nodes whose upstream nodes have all settled, each required link bringing a value: they become `running` (dispatched). */
  ready: Dispatch[];
  /** Pending nodes on routes not taken, or after skipped nodes: they become `skipped` (@weft/dag nextMoves, ADR 0029). */
  skipped: string[];
}

/** What follows from a run's node rows once a node's state changed: computed here, written by commitTransition. */
export interface Transition extends NodeMoves {
  /** Settled nodes (completed or skipped) over all nodes. */
  progress: number;
  /** The type of the first dispatched node in flow order (null while only reviews are open). */
  currentNode: string | null;
  awaitingReview: boolean;
  /** Set when every node has settled: the run completes with these results (null for a skipped node) and this cost. */
  completion: { results: RunResult[]; cost: number; outputAssetIds: string[]; charges: NodeCharge[] } | null;
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

/**
 * Marks `running` (dispatched) the pending nodes whose upstream nodes have
 * all settled and whose required links all bring a value, and `skipped` the
 * others whose upstream nodes have settled (a route not taken or a skipped
 * node feeds them); returns both.
 */
export function dispatchReady(nodes: NodeRow[], version: LoadedVersion): NodeMoves {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const moves = nextMoves(
    version.graph,
    (id) => {
      const row = byId.get(id);
      return row && { status: row.status, ports: row.output?.ports };
    },
    isRequiredInput,
  );
  const ready: Dispatch[] = [];
  for (const id of moves.ready) {
    const row = byId.get(id)!;
    row.status = 'running';
    ready.push({ nodeId: id, attempt: row.attempt, nodeType: row.node_type });
  }
  for (const id of moves.skipped) byId.get(id)!.status = 'skipped';
  return { ready, skipped: moves.skipped };
}

/** The transition of a run whose rows are `nodes`, `moves` being what it did to pending nodes. */
export function transitionOf(
  run: RunRow,
  nodes: NodeRow[],
  moves: NodeMoves,
  version: LoadedVersion,
  resultSpec: FlowOutput[],
): Transition {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const settled = nodes.filter((n) => n.status === 'completed' || n.status === 'skipped').length;
  const total = nodes.length;
  if (settled === total) {
    return {
      ready: [],
      skipped: moves.skipped,
      progress: 1,
      currentNode: null,
      awaitingReview: false,
      completion: completionOf(run, byId, nodes, resultSpec),
    };
  }
  const current = version.graph.nodeIds().find((id) => byId.get(id)?.status === 'running');
  return {
    ...moves,
    progress: total === 0 ? 0 : settled / total,
    currentNode: current ? byId.get(current)!.node_type : null,
    awaitingReview: nodes.some((n) => n.status === 'waiting_review'),
    completion: null,
  };
}

/** What a node gives a run's results: nothing when it was skipped or its value went through none of its outputs. */
function nodeResult(row: NodeRow | undefined): unknown {
  if (row?.status !== 'completed' || row.output?.ports?.length === 0) return null;
  return row.output?.value;
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
    value: (nodeResult(byId.get(spec.id)) ?? null) as RunResult['value'],
    description: spec.description,
  }));
  // Produced assets are registered as intermediate; the ones the results name become outputs (extensions.md 7).
  const outputAssetIds = results.flatMap((r): string[] =>
    ASSET_RESULT_TYPES.has(r.type) && Array.isArray(r.value)
      ? (r.value as unknown[]).filter((v): v is string => typeof v === 'string')
      : [],
  );
  return { results, cost: actualCost(run, nodes), outputAssetIds, charges: nodeCharges(nodes) };
}
