import type { Flow, FlowNode } from '@weft/contracts';
import { linksOf, resolveTarget, type ResolvedLink } from './links';
import { isInertNodeType, type RerunOutput } from './node-kinds';
import { assertValidFlow } from './validate';

/**
 * The executable graph of a valid flow: `comment`/`group` nodes are left out
 * (they are never executed), edges point from upstream to downstream and are
 * deduplicated (a node may read the same upstream through several ports).
 * Every list it returns is in flow order, so callers get deterministic results.
 *
 * Build it with `FlowGraph.of(flow)`, which validates the flow first and
 * caches the graph per flow object.
 */
export class FlowGraph {
  private readonly byId = new Map<string, FlowNode>();
  private readonly order = new Map<string, number>();
  private readonly up = new Map<string, string[]>();
  private readonly down = new Map<string, string[]>();
  private readonly links = new Map<string, ResolvedLink[]>();
  private topo: string[] | undefined;

  private constructor(readonly flow: Flow) {
    for (const node of flow.nodes) {
      if (isInertNodeType(node.type)) continue;
      this.order.set(node.id, this.order.size);
      this.byId.set(node.id, node);
      this.up.set(node.id, []);
      this.down.set(node.id, []);
    }
    for (const node of this.byId.values()) {
      const ups = this.up.get(node.id)!;
      // A valid flow's links all name an executable node.
      const links = linksOf(node).map((link) => ({
        ...link,
        ...resolveTarget(link.target, (id) => this.byId.has(id))!,
      }));
      this.links.set(node.id, links);
      for (const { node: target } of links) {
        if (ups.includes(target)) continue;
        ups.push(target);
        this.down.get(target)!.push(node.id);
      }
      ups.sort(this.byFlowOrder);
    }
    for (const list of this.down.values()) list.sort(this.byFlowOrder);
  }

  private static readonly cache = new WeakMap<Flow, FlowGraph>();

  /** Validates the flow (throws ValidationError) and returns its graph, cached per flow object. */
  static of(flow: Flow): FlowGraph {
    let graph = FlowGraph.cache.get(flow);
    if (!graph) {
      assertValidFlow(flow);
      graph = new FlowGraph(flow);
      FlowGraph.cache.set(flow, graph);
    }
    return graph;
  }

  private readonly byFlowOrder = (a: string, b: string) => this.order.get(a)! - this.order.get(b)!;

  /** Ids of the nodes that execute, in flow order. */
  nodeIds(): string[] {
    return [...this.byId.keys()];
  }

  node(id: string): FlowNode | undefined {
    return this.byId.get(id);
  }

  /** Direct upstream nodes: the ones `id` reads from. */
  upstreamOf(id: string): string[] {
    return [...this.known(this.up, id)];
  }

  /** The links of `id` in declaration order, each resolved to the node it reads (and the named output, if any). */
  inputLinks(id: string): readonly ResolvedLink[] {
    return this.known(this.links, id);
  }

  /** Direct downstream nodes: the ones reading from `id`. */
  downstreamOf(id: string): string[] {
    return [...this.known(this.down, id)];
  }

  /** Every node `id` depends on, transitively, in flow order. */
  ancestorsOf(id: string): string[] {
    return this.closure(this.up, id);
  }

  /** Every node depending on `id`, transitively, in flow order (what a retry of `id` invalidates). */
  descendantsOf(id: string): string[] {
    return this.closure(this.down, id);
  }

  /**
   * What a retry of the review node `id` re-runs so that it can propose
   * something different: walking upstream through nodes whose output would
   * come out the same (`rerunOutputOf`, from the node types' definitions), the nearest nodes whose output may
   * change (`sources`), and every node on a path from one of them to the
   * review (`rerun`: the sources and the nodes between, not the review
   * itself). The walk stops at an earlier review, whose decision stands, and
   * never reaches past a source. Both lists are in flow order; both are empty
   * when nothing upstream can change, so re-running would propose the same.
   */
  retryPathOf(id: string, rerunOutputOf: (type: string) => RerunOutput): { sources: string[]; rerun: string[] } {
    const sources = new Set<string>();
    const same = new Set<string>();
    const todo = [...this.known(this.up, id)];
    while (todo.length > 0) {
      const next = todo.pop()!;
      if (sources.has(next) || same.has(next)) continue;
      const output = rerunOutputOf(this.byId.get(next)!.type);
      if (output === 'new') sources.add(next);
      if (output !== 'same') continue;
      same.add(next);
      todo.push(...this.up.get(next)!);
    }
    const between = new Set<string>();
    for (const source of sources) {
      for (const node of this.closure(this.down, source)) if (same.has(node)) between.add(node);
    }
    return {
      sources: [...sources].sort(this.byFlowOrder),
      rerun: [...sources, ...between].sort(this.byFlowOrder),
    };
  }

  /**
   * An order in which each node comes after all of its upstream nodes; among
   * independent nodes, flow order decides.
   */
  topologicalOrder(): string[] {
    if (this.topo) return [...this.topo];
    // Depth-first post-order from each node in flow order: a node is emitted
    // once all of its upstream nodes have been. The flow is acyclic (validated).
    const out: string[] = [];
    const done = new Set<string>();
    for (const root of this.byId.keys()) {
      if (done.has(root)) continue;
      const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        const ups = this.up.get(frame.id)!;
        const nextUp = ups[frame.next++];
        if (nextUp === undefined) {
          stack.pop();
          if (!done.has(frame.id)) {
            done.add(frame.id);
            out.push(frame.id);
          }
        } else if (!done.has(nextUp)) {
          stack.push({ id: nextUp, next: 0 });
        }
      }
    }
    this.topo = out;
    return [...out];
  }

  /**
   * Nodes not in `completed` whose upstream nodes all are: what may start now.
   * The caller removes the ones already started (running, waiting for review).
   */
  readyNodes(completed: ReadonlySet<string>): string[] {
    const out: string[] = [];
    for (const [id, ups] of this.up) {
      if (!completed.has(id) && ups.every((u) => completed.has(u))) out.push(id);
    }
    return out;
  }

  /** Nodes with no upstream: where every run starts. */
  roots(): string[] {
    return this.readyNodes(new Set());
  }

  private known<T>(map: Map<string, T[]>, id: string): T[] {
    const list = map.get(id);
    if (!list) throw new Error(`Unknown or non-executable node '${id}'`);
    return list;
  }

  private closure(map: Map<string, string[]>, id: string): string[] {
    const seen = new Set<string>();
    const todo = [...this.known(map, id)];
    while (todo.length > 0) {
      const next = todo.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      todo.push(...map.get(next)!);
    }
    return [...seen].sort(this.byFlowOrder);
  }
}

// Function forms, for callers that hold a flow rather than a graph.
export const topologicalOrder = (flow: Flow) => FlowGraph.of(flow).topologicalOrder();
export const readyNodes = (flow: Flow, completed: ReadonlySet<string>) => FlowGraph.of(flow).readyNodes(completed);
export const upstreamOf = (flow: Flow, id: string) => FlowGraph.of(flow).upstreamOf(id);
export const downstreamOf = (flow: Flow, id: string) => FlowGraph.of(flow).downstreamOf(id);
export const ancestorsOf = (flow: Flow, id: string) => FlowGraph.of(flow).ancestorsOf(id);
export const descendantsOf = (flow: Flow, id: string) => FlowGraph.of(flow).descendantsOf(id);
