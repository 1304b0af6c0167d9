import { NODE_TYPES, type Flow } from '@weft/contracts';
import { ValidationError, type ValidationIssue } from '@weft/errors';
import { linkLoc, linksOf, resolveTarget, type Link } from './links';
import { isInertNodeType } from './node-kinds';

export type Loc = (string | number)[];

const KNOWN_TYPES: ReadonlySet<string> = new Set(NODE_TYPES);

/** Issue `type` values produced here, in the snake_case style of docs/api.md#error-bodies. */
export const FLOW_ISSUE = {
  unknownType: 'enum',
  duplicateNodeId: 'duplicate_node_id',
  unknownNode: 'unknown_node',
  selfLink: 'self_link',
  inertLink: 'inert_node_link',
  cycle: 'cycle',
  duplicateOutputId: 'duplicate_output_id',
} as const;

interface IndexedLink extends Link {
  /** Index in `flow.nodes` of the upstream node (its first occurrence). */
  targetIndex: number;
}

/**
 * Every structural problem of a flow, each with a `loc` into the flow prefixed
 * by `prefix` (e.g. `['body', 'flow']`). Empty when the flow is valid.
 *
 * Checks: node types known (the contract's zod enum already rejects unknown
 * types at the HTTP edge; this repeats it for flows that did not pass through
 * it), node ids unique, every link names another existing node that is not a
 * `comment`/`group`, `comment`/`group` nodes have no links, no cycles, output
 * ids unique and naming an existing executable node. A link may name
 * `<node id>.<port>` when that node exists: whether the node has such a named
 * output (a router's route) is for the node types' definitions to say
 * (@weft/nodes flowNodeIssues).
 *
 * Pure and O(nodes + links); the gateway runs it on publication and the worker
 * may run it again on load.
 */
export function validateFlow(flow: Flow, prefix: Loc = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const nodes = flow.nodes ?? [];
  const at = (...rest: Loc): Loc => [...prefix, ...rest];

  // Node types and ids. The first occurrence of an id is the one links resolve to.
  const firstIndex = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (!KNOWN_TYPES.has(node.type)) {
      issues.push({
        loc: at('nodes', i, 'type'),
        msg: `Unknown node type '${String(node.type)}'`,
        type: FLOW_ISSUE.unknownType,
        input: node.type,
      });
    }
    const first = firstIndex.get(node.id);
    if (first === undefined) {
      firstIndex.set(node.id, i);
    } else {
      issues.push({
        loc: at('nodes', i, 'id'),
        msg: `Duplicate node id '${node.id}' (already used by nodes[${first}])`,
        type: FLOW_ISSUE.duplicateNodeId,
        input: node.id,
        ctx: { first_index: first },
      });
    }
  });

  // Links. Only the ones that survive these checks take part in cycle detection.
  const resolved: IndexedLink[][] = nodes.map(() => []);
  nodes.forEach((node, i) => {
    const inert = isInertNodeType(node.type);
    for (const link of linksOf(node)) {
      const loc = at('nodes', i, ...linkLoc(link));
      const named = resolveTarget(link.target, (id) => firstIndex.has(id));
      const targetIndex = named && firstIndex.get(named.node);
      if (inert) {
        issues.push({
          loc,
          msg: `A ${node.type} node cannot take inputs: it carries no data`,
          type: FLOW_ISSUE.inertLink,
          input: link.target,
        });
      } else if (named?.node === node.id) {
        issues.push({ loc, msg: `Node '${node.id}' links to itself`, type: FLOW_ISSUE.selfLink, input: link.target });
      } else if (targetIndex === undefined) {
        issues.push({
          loc,
          msg: `Unknown node '${link.target}'`,
          type: FLOW_ISSUE.unknownNode,
          input: link.target,
        });
      } else if (isInertNodeType(nodes[targetIndex]!.type)) {
        issues.push({
          loc,
          msg: `Cannot link to '${named!.node}': ${nodes[targetIndex]!.type} nodes carry no data`,
          type: FLOW_ISSUE.inertLink,
          input: link.target,
        });
      } else {
        resolved[i]!.push({ ...link, targetIndex });
      }
    }
  });

  for (const cycle of findCycles(
    nodes.map((n) => n.id),
    resolved,
  )) {
    const { nodeIndex, link, path } = cycle;
    issues.push({
      loc: at('nodes', nodeIndex, ...linkLoc(link)),
      msg: `Cycle: ${path.join(' → ')}`,
      type: FLOW_ISSUE.cycle,
      input: link.target,
      ctx: { cycle: path },
    });
  }

  const outputIds = new Map<string, number>();
  (flow.outputs ?? []).forEach((output, j) => {
    const targetIndex = firstIndex.get(output.id);
    if (targetIndex === undefined) {
      issues.push({
        loc: at('outputs', j, 'id'),
        msg: `Unknown node '${output.id}'`,
        type: FLOW_ISSUE.unknownNode,
        input: output.id,
      });
    } else if (isInertNodeType(nodes[targetIndex]!.type)) {
      issues.push({
        loc: at('outputs', j, 'id'),
        msg: `'${output.id}' is a ${nodes[targetIndex]!.type} node and produces nothing`,
        type: FLOW_ISSUE.inertLink,
        input: output.id,
      });
    }
    const first = outputIds.get(output.id);
    if (first === undefined) {
      outputIds.set(output.id, j);
    } else {
      issues.push({
        loc: at('outputs', j, 'id'),
        msg: `Duplicate output id '${output.id}' (already used by outputs[${first}])`,
        type: FLOW_ISSUE.duplicateOutputId,
        input: output.id,
        ctx: { first_index: first },
      });
    }
  });

  return issues;
}

/** Throws ValidationError (422) listing every issue when the flow is invalid. */
export function assertValidFlow(flow: Flow, prefix: Loc = []): void {
  const issues = validateFlow(flow, prefix);
  if (issues.length > 0) throw new ValidationError(issues);
}

interface FoundCycle {
  /** The node whose link closes the cycle. */
  nodeIndex: number;
  link: Link;
  /** Node ids in data-flow order, the first repeated at the end: `a → b → a`. */
  path: string[];
}

/**
 * Iterative depth-first search along links (downstream → upstream), roots in
 * flow order and links in declaration order, so the report is deterministic.
 * Every back edge closes one cycle; nodes already proven acyclic are not revisited.
 */
function findCycles(ids: string[], links: IndexedLink[][]): FoundCycle[] {
  const WHITE = 0;
  const GRAY = 1;
  const BLACK = 2;
  const color = new Uint8Array(ids.length);
  const found: FoundCycle[] = [];

  for (let root = 0; root < ids.length; root++) {
    if (color[root] !== WHITE) continue;
    // Each frame: node index and the position of the next link to follow.
    const stack: { node: number; next: number }[] = [{ node: root, next: 0 }];
    color[root] = GRAY;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const link = links[frame.node]![frame.next++];
      if (!link) {
        color[frame.node] = BLACK;
        stack.pop();
        continue;
      }
      const up = link.targetIndex;
      if (color[up] === WHITE) {
        color[up] = GRAY;
        stack.push({ node: up, next: 0 });
      } else if (color[up] === GRAY) {
        // The stack from `up` to the current node is a chain of "takes input from";
        // data therefore flows current → ... → up, and up → current closes it.
        const from = stack.findIndex((f) => f.node === up);
        const chain = stack.slice(from).map((f) => ids[f.node]!);
        const path = [ids[up]!, ...chain.slice(1).reverse(), ids[up]!];
        found.push({ nodeIndex: frame.node, link, path });
      }
    }
  }
  return found;
}
