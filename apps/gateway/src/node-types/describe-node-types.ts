import { NODE_TYPES, type NodeType, type NodeTypeInfo } from '@weft/contracts';
import { isInertNodeType } from '@weft/dag';
import { NotFoundError } from '@weft/errors';
import type { DeploymentRoutes } from '@weft/providers';
import { definitionOf, paramsJsonSchema, paramsSchemaOf, type NodeDefinition, type PortSpec } from '@weft/nodes';

const port = (name: string, spec: PortSpec) => ({
  name,
  accepts: [...spec.accepts],
  required: spec.required,
  many: spec.many,
  description: spec.description,
});

function routeOf(definition: NodeDefinition, routes: DeploymentRoutes): NodeTypeInfo['route'] {
  if (definition.serving === 'built_in') return { provider: 'built_in', model: null };
  const routed = routes.defaultRoute(definition.type);
  if (routed) return routed;
  return definition.localRoute ? { provider: 'local', model: definition.localRoute.model } : null;
}

function describe(definition: NodeDefinition, routes: DeploymentRoutes): NodeTypeInfo {
  const { output } = definition;
  return {
    type: definition.type,
    description: definition.description,
    serving: definition.serving,
    inputs: Object.entries(definition.inputs).map(([name, spec]) => port(name, spec)),
    other_inputs: definition.otherInputs ? (({ name: _, ...rest }) => rest)(port('', definition.otherInputs)) : null,
    params_schema: paramsJsonSchema(definition.type),
    output:
      'kinds' in output
        ? { kinds: [...output.kinds], same_as: null }
        : { kinds: [...(output.also ?? [])], same_as: output.sameAs },
    lane: definition.lane,
    default_timeout_ms: definition.defaultTimeoutMs,
    max_timeout_ms: definition.maxTimeoutMs,
    estimated_cost: definition.estimateCost(defaultParams(definition.type)),
    route: routeOf(definition, routes),
  };
}

/** The params a node of `type` gets when its flow sets none (or, when some are required, zod's best effort). */
function defaultParams(type: NodeType) {
  const parsed = paramsSchemaOf(type).safeParse({});
  return parsed.success ? parsed.data : {};
}

function inert(type: NodeType): NodeTypeInfo {
  return {
    type,
    description: `Carries no behaviour and is never executed: ${type === 'comment' ? 'a note' : 'a frame around nodes'} for people reading the flow.`,
    serving: 'built_in',
    inputs: [],
    other_inputs: null,
    params_schema: { type: 'object' },
    output: { kinds: [], same_as: null },
    lane: 'light',
    default_timeout_ms: 0,
    max_timeout_ms: 0,
    estimated_cost: 0,
    route: null,
  };
}

const described = new WeakMap<DeploymentRoutes, Map<string, NodeTypeInfo>>();

// The same for every caller of a deployment until provider adapters are routed per organization: built once.
function all(routes: DeploymentRoutes): Map<string, NodeTypeInfo> {
  let found = described.get(routes);
  if (!found) {
    found = new Map(
      NODE_TYPES.map((type) => [type, isInertNodeType(type) ? inert(type) : describe(definitionOf(type), routes)]),
    );
    described.set(routes, found);
  }
  return found;
}

export function listNodeTypes(routes: DeploymentRoutes): NodeTypeInfo[] {
  return [...all(routes).values()];
}

export function getNodeType(type: string, routes: DeploymentRoutes): NodeTypeInfo {
  const found = all(routes).get(type);
  if (!found) throw new NotFoundError(`Node type '${type}'`);
  return found;
}
