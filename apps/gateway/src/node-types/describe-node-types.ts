import { NODE_TYPES, type NodeType, type NodeTypeInfo } from '@weft/contracts';
import { isInertNodeType } from '@weft/dag';
import { NotFoundError } from '@weft/errors';
import type { DeploymentRoutes, RouteDescription } from '@weft/providers';
import {
  definitionOf,
  outputKinds,
  paramsJsonSchema,
  paramsSchemaOf,
  type NodeDefinition,
  type PortSpec,
} from '@weft/nodes';

const port = (name: string, spec: PortSpec) => ({
  name,
  accepts: [...spec.accepts],
  required: spec.required,
  many: spec.many,
  description: spec.description,
});

type StaticInfo = Omit<NodeTypeInfo, 'route' | 'route_missing'>;

/** Where `info`'s type goes for the organization (`found`: what the routes said; absent for built-in types). */
function routed(info: StaticInfo, found: RouteDescription | undefined): NodeTypeInfo {
  if (info.serving === 'built_in' || !found) {
    return {
      ...info,
      route: info.serving === 'built_in' ? { provider: 'built_in', model: null } : null,
      route_missing: null,
    };
  }
  if ('local' in found) {
    const local = definitionOf(info.type).localRoute;
    return { ...info, route: local ? { provider: 'local', model: local.model } : null, route_missing: null };
  }
  if ('missing' in found) return { ...info, route: null, route_missing: found.missing };
  return { ...info, route: { provider: found.provider, model: found.model }, route_missing: null };
}

function describe(definition: NodeDefinition): StaticInfo {
  const { output } = definition;
  return {
    type: definition.type,
    description: definition.description,
    serving: definition.serving,
    inputs: Object.entries(definition.inputs).map(([name, spec]) => port(name, spec)),
    other_inputs: definition.otherInputs ? (({ name: _, ...rest }) => rest)(port('', definition.otherInputs)) : null,
    params_schema: paramsJsonSchema(definition.type),
    output: { kinds: [...outputKinds(definition)], same_as: 'sameAs' in output ? output.sameAs : null },
    lane: definition.lane,
    default_timeout_ms: definition.defaultTimeoutMs,
    max_timeout_ms: definition.maxTimeoutMs,
    estimated_cost: definition.estimateCost(defaultParams(definition.type)),
  };
}

/** The params a node of `type` gets when its flow sets none (or, when some are required, zod's best effort). */
function defaultParams(type: NodeType) {
  const parsed = paramsSchemaOf(type).safeParse({});
  return parsed.success ? parsed.data : {};
}

function inert(type: NodeType): StaticInfo {
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
  };
}

// What does not depend on the caller: built once per process.
let described: Map<string, StaticInfo> | undefined;

function all(): Map<string, StaticInfo> {
  described ??= new Map(
    NODE_TYPES.map((type) => [type, isInertNodeType(type) ? inert(type) : describe(definitionOf(type))]),
  );
  return described;
}

const servedByProvider = (info: StaticInfo) => info.serving !== 'built_in' && !isInertNodeType(info.type);

/** Every node type, with its route for the caller's organization (its own credentials and the deployment's). */
export async function listNodeTypes(routes: DeploymentRoutes, organizationId: string): Promise<NodeTypeInfo[]> {
  const infos = [...all().values()];
  const found = await routes.describe(
    infos.filter(servedByProvider).map((i) => i.type),
    organizationId,
  );
  return infos.map((info) => routed(info, found.get(info.type)));
}

export async function getNodeType(
  type: string,
  routes: DeploymentRoutes,
  organizationId: string,
): Promise<NodeTypeInfo> {
  const info = all().get(type);
  if (!info) throw new NotFoundError(`Node type '${type}'`);
  const found = servedByProvider(info) ? await routes.describe([info.type], organizationId) : new Map();
  return routed(info, found.get(info.type));
}
