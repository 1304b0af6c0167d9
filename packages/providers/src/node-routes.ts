import type { NodeType } from '@weft/contracts';
import { NodeFailure, type NodeRoute, type NodeRoutes } from '@weft/nodes';
import type { Capability } from './capability';
import type { ProviderAdapter } from './provider-adapter';
import type { RouteTable } from './route-table';

/** What GET /node-types shows of a type's route in this deployment. */
export interface DeploymentRoutes extends NodeRoutes {
  /** The provider and model a node of `type` with no provider params goes to; undefined when none. */
  defaultRoute(type: NodeType): { provider: string; model: string } | undefined;
}

/**
 * The routes of a deployment: NODE_ROUTES first, else the first configured
 * adapter serving the type, each with its default model; a node's
 * params.provider and params.model choose among what the deployment allows.
 */
export function nodeRoutes(adapters: readonly ProviderAdapter[], table: RouteTable): DeploymentRoutes {
  const byName = new Map(adapters.map((a) => [a.provider, a]));

  type Picked = { missing: string } | { adapter: ProviderAdapter; capability: Capability; model: string };

  function pick(type: NodeType, provider: string | undefined, model: string | undefined): Picked {
    const routed = table.get(type);
    const name = provider ?? routed?.provider ?? adapters.find((a) => a.configured && a.capabilities[type])?.provider;
    const servers = adapters.filter((a) => a.defaultModels[type]);
    if (!name) {
      const first = servers[0];
      if (!first) return { missing: `no provider adapter of this version serves ${type}` };
      return {
        missing: `set ${first.credential} (and NODE_ROUTES=${type}=${first.provider}:<model> to choose a model)`,
      };
    }
    const adapter = byName.get(name);
    if (!adapter || !adapter.defaultModels[type]) {
      const known = servers.map((a) => a.provider).join(', ') || 'none';
      return { missing: `provider '${name}' does not serve ${type} in this version (providers serving it: ${known})` };
    }
    const capability = adapter.capabilities[type];
    if (!adapter.configured || !capability) {
      return { missing: `set ${adapter.credential} (and NODE_ROUTES=${type}=${name}:<model> to choose a model)` };
    }
    const chosen = model ?? (provider === undefined || provider === routed?.provider ? routed?.model : undefined);
    return { adapter, capability, model: chosen ?? capability.defaultModel };
  }

  return {
    routeFor(type, params): NodeRoute | { missing: string } {
      const provider = typeof params.provider === 'string' ? params.provider : undefined;
      const model = typeof params.model === 'string' ? params.model : undefined;
      const found = pick(type, provider, model);
      if ('missing' in found) {
        // A provider the node asked for by name is the flow's mistake, not the deployment's.
        if (provider !== undefined && !byName.get(provider)?.defaultModels[type]) {
          throw new NodeFailure('invalid_input', `params.provider: ${found.missing}`);
        }
        return { missing: found.missing };
      }
      return {
        provider: found.adapter.provider,
        model: found.model,
        execute: (ctx) => found.capability.execute(ctx, found.model),
      };
    },
    defaultRoute(type) {
      const found = pick(type, undefined, undefined);
      return 'missing' in found ? undefined : { provider: found.adapter.provider, model: found.model };
    },
  };
}
