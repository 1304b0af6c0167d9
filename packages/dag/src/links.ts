import type { FlowNode } from '@weft/contracts';

/** One reference from a node's `inputs` to an upstream node. */
export interface Link {
  /** Port name: the key of `inputs`. */
  port: string;
  /** Position in the list when the port holds a list of ids; undefined for a single id. */
  index: number | undefined;
  /** The upstream node id named by the link. */
  target: string;
}

/** The links of a node in declaration order (ports in key order, list entries in list order). */
export function linksOf(node: Pick<FlowNode, 'inputs'>): Link[] {
  const out: Link[] = [];
  for (const [port, value] of Object.entries(node.inputs ?? {})) {
    if (Array.isArray(value)) value.forEach((target, index) => out.push({ port, index, target }));
    else out.push({ port, index: undefined, target: value });
  }
  return out;
}

/** `['inputs', port]` or `['inputs', port, index]`: where a link sits inside its node. */
export function linkLoc(link: Link): (string | number)[] {
  return link.index === undefined ? ['inputs', link.port] : ['inputs', link.port, link.index];
}
