import { NODE_TYPES, type DataType, type Flow, type FlowNode } from '@weft/contracts';
import { isInertNodeType, linkLoc, linksOf, resolveTarget, type Link, type Loc } from '@weft/dag';
import type { ValidationIssue } from '@weft/errors';
import { ANY_KIND, outputKinds, type NodeDefinition, type PortSpec } from './definition';
import { definitionOf, isDefinedNodeType, paramsSchemaOf } from './registry';

const KNOWN_TYPES: ReadonlySet<string> = new Set(NODE_TYPES);

/** Issue `type` values produced here. */
export const NODE_ISSUE = {
  unknownPort: 'unknown_port',
  missingPort: 'missing',
  tooManyLinks: 'too_many_links',
  wrongKind: 'port_kind',
  timeout: 'less_than_equal',
  noNamedOutputs: 'no_named_outputs',
  unknownOutput: 'unknown_output',
} as const;

/** The node a link names: `id`, or `id.port` for a node with named outputs (router). */
function upstreamNode(target: string, byId: Map<string, FlowNode>): FlowNode | undefined {
  const named = resolveTarget(target, (id) => byId.has(id));
  return named && byId.get(named.node);
}

/**
 * The issue of a link `<id>.<port>` whose node has no such named output: it
 * has none (only a router does), or its params name no such route.
 */
function namedOutputIssue(link: Link, upstream: FlowNode, at: Loc): ValidationIssue | undefined {
  const named = resolveTarget(link.target, (id) => id === upstream.id);
  if (named?.output === undefined) return undefined;
  const definition = definitionOf(upstream.type);
  if (!definition.outputPorts) {
    return {
      loc: at,
      msg: `'${upstream.id}' is a ${upstream.type} node: it has a single output, linked as '${upstream.id}'`,
      type: NODE_ISSUE.noNamedOutputs,
      input: link.target,
    };
  }
  // Params the schema refuses have issues of their own; their ports cannot be known.
  const params = paramsSchemaOf(upstream.type).safeParse(upstream.params ?? {});
  if (!params.success) return undefined;
  const ports = [...new Set(definition.outputPorts(params.data))];
  if (ports.includes(named.output)) return undefined;
  return {
    loc: at,
    msg: `${upstream.type} '${upstream.id}' has no output '${named.output}'; its outputs are ${ports.map((p) => `'${p}'`).join(', ')}`,
    type: NODE_ISSUE.unknownOutput,
    input: link.target,
    ctx: { outputs: ports },
  };
}

const list = (kinds: readonly DataType[]) => kinds.join(' or ');

/**
 * What each node of a flow may produce, following pass-through outputs
 * (`sameAs`: human_review, list_selector, router, ...) to the nodes that feed
 * them, within what their type can produce.
 */
class OutputKinds {
  private readonly memo = new Map<string, readonly DataType[]>();
  constructor(private readonly byId: Map<string, FlowNode>) {}

  of(node: FlowNode, seen = new Set<string>()): readonly DataType[] {
    const known = this.memo.get(node.id);
    if (known) return known;
    if (!isDefinedNodeType(node.type) || seen.has(node.id)) return ANY_KIND;
    seen.add(node.id);
    const definition = definitionOf(node.type);
    const { output } = definition;
    const possible = outputKinds(definition);
    let kinds = possible;
    if (!('kinds' in output)) {
      const fed = node.inputs?.[output.sameAs];
      const targets = fed === undefined ? [] : Array.isArray(fed) ? fed : [fed];
      const upstream = targets.map((t) => upstreamNode(t, this.byId));
      if (upstream.length > 0 && upstream.every((u) => u !== undefined)) {
        const passed = new Set([...upstream.flatMap((u) => this.of(u, seen)), ...(output.also ?? [])]);
        const narrowed = possible.filter((kind) => passed.has(kind));
        // None: the port refuses what feeds it, an issue of its own; what follows is checked against the type.
        if (narrowed.length > 0) kinds = narrowed;
      }
    }
    this.memo.set(node.id, kinds);
    return kinds;
  }
}

function portOf(definition: NodeDefinition, port: string): PortSpec | undefined {
  return Object.hasOwn(definition.inputs, port) ? definition.inputs[port] : definition.otherInputs;
}

/**
 * Every way a flow's nodes disagree with their types' definitions, each with
 * a `loc` into the flow prefixed by `prefix`: an input port the type does not
 * have, a required one left unlinked, several nodes on a single-value port, a
 * port fed by a node whose output is of a kind it does not take, and a
 * `timeout_ms` above the type's maximum, a link `<id>.<port>` to a node
 * without that named output (a router's route). Params are checked against each
 * type's schema by the caller (paramsSchemaOf), which renders zod's issues.
 * Structure (ids, links to existing nodes, cycles) is @weft/dag's to report:
 * links it would refuse are passed over here.
 */
export function flowNodeIssues(flow: Flow, prefix: Loc = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const byId = new Map<string, FlowNode>();
  for (const node of flow.nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  const outputs = new OutputKinds(byId);

  flow.nodes.forEach((node, i) => {
    if (!KNOWN_TYPES.has(node.type) || isInertNodeType(node.type)) return;
    const definition = definitionOf(node.type);
    const at = (...rest: Loc): Loc => [...prefix, 'nodes', i, ...rest];

    for (const [port, value] of Object.entries(node.inputs ?? {})) {
      const spec = portOf(definition, port);
      if (!spec) {
        const ports = Object.keys(definition.inputs);
        issues.push({
          loc: at('inputs', port),
          msg: ports.length
            ? `A ${node.type} node has no input '${port}'; its inputs are ${ports.map((p) => `'${p}'`).join(', ')}`
            : `A ${node.type} node takes no inputs`,
          type: NODE_ISSUE.unknownPort,
          input: value,
          ctx: { ports },
        });
        continue;
      }
      if (!spec.many && Array.isArray(value) && value.length > 1) {
        issues.push({
          loc: at('inputs', port),
          msg: `Input '${port}' of a ${node.type} node takes one node, got ${value.length}`,
          type: NODE_ISSUE.tooManyLinks,
          input: value,
        });
      }
    }

    for (const link of linksOf(node)) {
      const spec = portOf(definition, link.port);
      const upstream = upstreamNode(link.target, byId);
      if (!upstream || upstream === node || !isDefinedNodeType(upstream.type)) continue;
      const unnamed = namedOutputIssue(link, upstream, at(...linkLoc(link)));
      if (unnamed) issues.push(unnamed);
      if (!spec) continue;
      const produced = outputs.of(upstream);
      if (produced.some((kind) => spec.accepts.includes(kind))) continue;
      issues.push({
        loc: at(...linkLoc(link)),
        msg:
          `Input '${link.port}' of a ${node.type} node takes ${list(spec.accepts)}; ` +
          `'${link.target}' (${upstream.type}) produces ${list(produced)}`,
        type: NODE_ISSUE.wrongKind,
        input: link.target,
        ctx: { expected: spec.accepts, got: produced },
      });
    }

    for (const [port, spec] of Object.entries(definition.inputs)) {
      if (!spec.required || node.inputs?.[port] !== undefined) continue;
      issues.push({
        loc: at('inputs', port),
        msg: `A ${node.type} node needs input '${port}' (${list(spec.accepts)}): ${spec.description}`,
        type: NODE_ISSUE.missingPort,
      });
    }

    const given = node.params?.timeout_ms;
    if (typeof given === 'number' && given > definition.maxTimeoutMs) {
      issues.push({
        loc: at('params', 'timeout_ms'),
        msg: `A ${node.type} node may be given at most ${definition.maxTimeoutMs} ms`,
        type: NODE_ISSUE.timeout,
        input: given,
        ctx: { max: definition.maxTimeoutMs },
      });
    }
  });
  return issues;
}
