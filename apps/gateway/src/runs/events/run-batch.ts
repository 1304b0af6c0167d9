import type { RunNodeEvent } from '@weft/contracts';
import { RUN, type FlowGraph } from '@weft/dag';
import type { NodeChangeRow, RunChangesRow } from '@weft/engine';
import { recordOf } from '../get-run';
import type { RunKind } from '../run-kind';

/** A node row as its `node` event sends it, and its place in the order of changes. */
export interface NodeChange {
  /** The run version of the change. */
  version: number;
  /** The node's place in the flow, upstream nodes first. */
  rank: number;
  nodeId: string;
  /** The event's data, serialised once for every stream of the run. */
  data: string;
}

/** One read of a run, as every stream of the run takes from it what it has not sent yet. */
export interface RunBatch {
  /** runs.version: the moment of the run this is. */
  version: number;
  /** The run version it read node rows from: a stream whose cursor is older cannot take it. */
  since: number;
  ended: boolean;
  /** The record exactly as GET of the run answers it, serialised. */
  record: string;
  /** The node rows changed since the version read from, in the order they are sent. */
  nodes: NodeChange[];
  /** A node's rank; -1 for '' (before any node); undefined for an id the run has no node for. */
  rankOf(nodeId: string): number | undefined;
}

// Node changes of one version are committed together; they are sent upstream first (a chain of
// instant nodes settles in one commit, and reads best in the order it executed).
const ranksByGraph = new WeakMap<FlowGraph, Map<string, number>>();

function ranksOf(graph: FlowGraph): Map<string, number> {
  let ranks = ranksByGraph.get(graph);
  if (!ranks) {
    ranks = new Map(graph.topologicalOrder().map((id, i) => [id, i]));
    ranksByGraph.set(graph, ranks);
  }
  return ranks;
}

const iso = (at: string | null) => (at === null ? null : new Date(at).toISOString());

function nodeEvent(row: NodeChangeRow): RunNodeEvent {
  return {
    node_id: row.node_id,
    type: row.type as RunNodeEvent['type'],
    status: row.status as RunNodeEvent['status'],
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    cost: row.cost,
    error: row.error,
  };
}

export function runBatch(kind: RunKind, row: RunChangesRow, graph: FlowGraph, since: number): RunBatch {
  const ranks = ranksOf(graph);
  const nodes = (row.nodes ?? []).map((n) => ({
    version: n.run_version,
    rank: ranks.get(n.node_id) ?? ranks.size,
    nodeId: n.node_id,
    data: JSON.stringify(nodeEvent(n)),
  }));
  nodes.sort((a, b) => a.version - b.version || a.rank - b.rank);
  return {
    version: row.run_version,
    since,
    ended: row.status !== RUN.inProgress,
    record: JSON.stringify(recordOf(kind, row)),
    nodes,
    rankOf: (nodeId) => (nodeId === '' ? -1 : ranks.get(nodeId)),
  };
}
