import { isFileDataType } from '@weft/contracts';
import type { FlowOutput, RunResult } from '@weft/contracts';
import { nextMoves } from '../branches';
import type { FlowGraph } from '../graph';
import { canMove, isSettled, NODE, type NodeStatus } from './statuses';

// The run state machine, pure: from a run's node rows, which nodes are ready
// (to dispatch) or skipped, the run's progress, and its completion once every
// node has settled. The engine reads and commits the rows; this decides.

/** A node's row as the state machine sees it. */
export interface NodeState {
  node_id: string;
  node_type: string;
  status: NodeStatus;
  attempt: number;
  /** Credits its executions cost so far. */
  cost: number;
  /** Its value, and for a node with named outputs (a router) the outputs that carry it. */
  output: { type: string; value: unknown; ports?: string[] } | null;
}

/** A run as the state machine sees it: what it reserved caps what it costs. */
export interface RunState {
  reserved_credits: number;
}

/** A ready node, to be enqueued once the transition that made it ready has committed. */
export interface Dispatch {
  nodeId: string;
  attempt: number;
  nodeType: string;
}

/** What a transition does to pending nodes. */
export interface NodeMoves {
  /** Pending nodes whose upstream nodes have all settled, each required link bringing a value: they become `running` (dispatched). */
  ready: Dispatch[];
  /** Pending nodes on routes not taken, or after skipped nodes: they become `skipped` (nextMoves). */
  skipped: string[];
}

/** What one node cost its run: a ledger line of its own, so the ledger explains a run's charge node by node. */
export interface NodeCharge {
  nodeId: string;
  nodeType: string;
  cost: number;
}

export interface Completion {
  /** The run's results: one per output of its flow or app (null for a node that gave no value). */
  results: RunResult[];
  cost: number;
  /** Assets the results name: they become the run's outputs. */
  outputAssetIds: string[];
  charges: NodeCharge[];
}

/** What follows from a run's node rows once a node's state changed. */
export interface Transition extends NodeMoves {
  /** Settled nodes (completed or skipped) over all nodes. */
  progress: number;
  /** The type of the first dispatched node in flow order (null while only reviews are open). */
  currentNode: string | null;
  awaitingReview: boolean;
  /** Set when every node has settled: the run completes with these results and this cost. */
  completion: Completion | null;
}

/** Whether an input port of a node type must receive a value for the node to run. */
export type RequiredPort = (type: string, port: string) => boolean;

/** Moves a node's row, refusing a move the state machine does not make (a bug, never an input). */
export function moveNode(row: NodeState, to: NodeStatus): void {
  if (row.status !== to && !canMove(row.status, to)) {
    throw new Error(`Node '${row.node_id}' cannot move from ${row.status} to ${to}`);
  }
  row.status = to;
}

/**
 * The transition of a run whose node rows are now `nodes`. Pure: the caller
 * holds the run's lock or commits on the condition that the run's version is
 * still the one `nodes` was read at. Marks the ready nodes `running` in `nodes`.
 */
export function planTransition(
  run: RunState,
  nodes: NodeState[],
  graph: FlowGraph,
  resultSpec: FlowOutput[],
  requiredPort: RequiredPort,
): Transition {
  return transitionOf(run, nodes, dispatchReady(nodes, graph, requiredPort), graph, resultSpec);
}

/**
 * Marks `running` (dispatched) the pending nodes whose upstream nodes have
 * all settled and whose required links all bring a value, and `skipped` the
 * others whose upstream nodes have settled (a route not taken or a skipped
 * node feeds them); returns both.
 */
export function dispatchReady(nodes: NodeState[], graph: FlowGraph, requiredPort: RequiredPort): NodeMoves {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const moves = nextMoves(
    graph,
    (id) => {
      const row = byId.get(id);
      return row && { status: row.status, ports: row.output?.ports };
    },
    requiredPort,
  );
  const ready: Dispatch[] = [];
  for (const id of moves.ready) {
    const row = byId.get(id)!;
    moveNode(row, NODE.running);
    ready.push({ nodeId: id, attempt: row.attempt, nodeType: row.node_type });
  }
  for (const id of moves.skipped) moveNode(byId.get(id)!, NODE.skipped);
  return { ready, skipped: moves.skipped };
}

/** The transition of a run whose rows are `nodes`, `moves` being what it did to pending nodes. */
export function transitionOf(
  run: RunState,
  nodes: NodeState[],
  moves: NodeMoves,
  graph: FlowGraph,
  resultSpec: FlowOutput[],
): Transition {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const settled = nodes.filter((n) => isSettled(n.status)).length;
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
  const current = graph.nodeIds().find((id) => byId.get(id)?.status === NODE.running);
  return {
    ...moves,
    progress: total === 0 ? 0 : settled / total,
    currentNode: current ? byId.get(current)!.node_type : null,
    awaitingReview: nodes.some((n) => n.status === NODE.waitingReview),
    completion: null,
  };
}

/** Sum of the node costs incurred, capped at the reservation: the estimate is the most a run can cost. */
export function actualCost(run: RunState, nodes: NodeState[]): number {
  const incurred = nodes.reduce((sum, node) => sum + node.cost, 0);
  return Math.min(incurred, run.reserved_credits);
}

/** The nodes that cost their run something, in the order of their rows. */
export function nodeCharges(nodes: NodeState[]): NodeCharge[] {
  return nodes.filter((n) => n.cost > 0).map((n) => ({ nodeId: n.node_id, nodeType: n.node_type, cost: n.cost }));
}

/** What a node gives a run's results: nothing when it was skipped or its value went through none of its outputs. */
function nodeResult(row: NodeState | undefined): unknown {
  if (row?.status !== NODE.completed || row.output?.ports?.length === 0) return null;
  return row.output?.value;
}

function completionOf(
  run: RunState,
  byId: Map<string, NodeState>,
  nodes: NodeState[],
  resultSpec: FlowOutput[],
): Completion {
  const results: RunResult[] = resultSpec.map((spec) => ({
    id: spec.id,
    type: spec.type,
    value: (nodeResult(byId.get(spec.id)) ?? null) as RunResult['value'],
    description: spec.description,
  }));
  // Produced assets are registered as intermediate; the ones the results name become outputs.
  const outputAssetIds = results.flatMap((r): string[] =>
    isFileDataType(r.type) && Array.isArray(r.value)
      ? (r.value as unknown[]).filter((v): v is string => typeof v === 'string')
      : [],
  );
  return { results, cost: actualCost(run, nodes), outputAssetIds, charges: nodeCharges(nodes) };
}
