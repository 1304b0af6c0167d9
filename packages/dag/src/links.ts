import type { FlowNode } from '@weft/contracts';

/** One reference from a node's `inputs` to an upstream node. */
export interface Link {
  /** Port name: the key of `inputs`. */
  port: string;
  /** Position in the list when the port holds a list of ids; undefined for a single id. */
  index: number | undefined;
  /** The upstream reference as written: a node id, or `<node id>.<port>` for a node with named outputs. */
  target: string;
}

/** What a link's target names: a node and, for `<node id>.<port>`, one of its named outputs (a router's routes). */
export interface LinkTarget {
  node: string;
  /** The named output; undefined when the link names the node itself. */
  output: string | undefined;
}

/** A link with its target resolved to a node of the flow. */
export interface ResolvedLink extends Link, LinkTarget {}

/** The links of a node in declaration order (ports in key order, list entries in list order). */
export function linksOf(node: Pick<FlowNode, 'inputs'>): Link[] {
  const out: Link[] = [];
  for (const [port, value] of Object.entries(node.inputs ?? {})) {
    if (Array.isArray(value)) value.forEach((target, index) => out.push({ port, index, target }));
    else out.push({ port, index: undefined, target: value });
  }
  return out;
}

/**
 * The node a link's target names: a node id as it is (ids may hold dots, and
 * an exact id wins), else `<node id>.<port>` split at the last dot when that
 * node exists (output port names hold no dots). Undefined when it names no node.
 */
export function resolveTarget(target: string, exists: (id: string) => boolean): LinkTarget | undefined {
  if (exists(target)) return { node: target, output: undefined };
  const dot = target.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const node = target.slice(0, dot);
  return exists(node) ? { node, output: target.slice(dot + 1) } : undefined;
}

/** `['inputs', port]` or `['inputs', port, index]`: where a link sits inside its node. */
export function linkLoc(link: Link): (string | number)[] {
  return link.index === undefined ? ['inputs', link.port] : ['inputs', link.port, link.index];
}
