import type { FlowGraph } from './graph';
import type { ResolvedLink } from './links';

// Which nodes a run moves on to once some of its nodes have settled, when a
// node may pass its value on through some of its named outputs only (a router
// through the route it took): a node one of whose required inputs comes from a
// route not taken ends `skipped`, as does one that only such routes lead to;
// and so, in turn, do the nodes after a skipped node (ADR 0029).

/** A node as the nodes downstream of it see it. */
export interface BranchState {
  status: string;
  /** For a completed node with named outputs, the ones that carry its value; undefined: every output does. */
  ports?: readonly string[] | undefined;
}

export interface Moves {
  /** Pending nodes to start: every upstream node settled, every link of a required port bringing a value. */
  ready: string[];
  /** Pending nodes that end `skipped`: they never run and cost nothing. */
  skipped: string[];
}

/**
 * Whether `link` brings a value: its upstream node completed and, when it
 * named the outputs that carry its value, the linked one is among them (a
 * plain link to such a node: any of them is).
 */
export function carriesValue(link: ResolvedLink, upstream: BranchState | undefined): boolean {
  if (upstream?.status !== 'completed') return false;
  if (!upstream.ports) return true;
  return link.output === undefined ? upstream.ports.length > 0 : upstream.ports.includes(link.output);
}

/**
 * Whether a node whose upstream nodes have all settled runs. It does not
 * when a link on one of its required ports brings nothing: the node belongs
 * to the branch that link comes from. Nor when none of its links brings
 * anything (every path to it comes through routes not taken or skipped
 * nodes). Otherwise it runs, its optional ports without the links that bring
 * nothing (absent when none does).
 */
export function runsWith(
  links: readonly ResolvedLink[],
  state: (id: string) => BranchState | undefined,
  isRequired: (port: string) => boolean,
): boolean {
  if (links.length === 0) return true;
  let fed = false;
  for (const link of links) {
    if (carriesValue(link, state(link.node))) fed = true;
    else if (isRequired(link.port)) return false;
  }
  return fed;
}

const settled = (state: BranchState | undefined) => state?.status === 'completed' || state?.status === 'skipped';

/**
 * The pending nodes (per `state`) whose upstream nodes have all settled
 * (completed or skipped): each either starts or ends skipped (runsWith). A
 * node skipped here settles in turn, so the nodes after it are decided in
 * the same pass (topological order). `requiredPort` says which input ports a
 * node type cannot run without. Both lists are in flow order.
 */
export function nextMoves(
  graph: FlowGraph,
  state: (id: string) => BranchState | undefined,
  requiredPort: (type: string, port: string) => boolean,
): Moves {
  const skippedNow = new Set<string>();
  const current = (id: string): BranchState | undefined => (skippedNow.has(id) ? { status: 'skipped' } : state(id));
  const ready = new Set<string>();
  for (const id of graph.topologicalOrder()) {
    if (state(id)?.status !== 'pending' || !graph.upstreamOf(id).every((up) => settled(current(up)))) continue;
    const type = graph.node(id)!.type;
    if (runsWith(graph.inputLinks(id), current, (port) => requiredPort(type, port))) ready.add(id);
    else skippedNow.add(id);
  }
  const ids = graph.nodeIds();
  return { ready: ids.filter((id) => ready.has(id)), skipped: ids.filter((id) => skippedNow.has(id)) };
}
