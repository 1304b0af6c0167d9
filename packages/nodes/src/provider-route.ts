import type { NodeType } from '@weft/contracts';
import { NodeFailure, type NodeContext, type NodeResult } from './types';

/** The failure of a node whose type no adapter serves in this deployment. */
export function notConfigured(type: NodeType, nodeId: string): NodeFailure {
  return new NodeFailure(
    'provider_auth_required',
    `Node '${nodeId}' (${type}) is served by a provider adapter, not configured in this deployment`,
  );
}

/** The routes' own refusals (a params.provider the deployment has not) say which node they are about. */
async function namingNode<T>(nodeId: string, type: NodeType, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (err) {
    if (err instanceof NodeFailure) throw new NodeFailure(err.reason, `Node '${nodeId}' (${type}): ${err.message}`);
    throw err;
  }
}

/**
 * Executes a node where the deployment routes its type (ADR 0030). A type
 * with a local route (`local`) runs on the worker unless a provider is asked
 * for by params.provider or routed to by the deployment or the organization;
 * `params.provider: 'local'` always runs it locally.
 */
export async function executeRouted(
  type: NodeType,
  ctx: NodeContext,
  local?: (ctx: NodeContext) => Promise<NodeResult>,
): Promise<NodeResult> {
  const asked = (ctx.params as { provider?: unknown }).provider;
  if (local && asked === 'local') return local(ctx);
  if (!ctx.routes) {
    if (local && asked === undefined) return local(ctx);
    throw notConfigured(type, ctx.nodeId);
  }
  const route = await namingNode(ctx.nodeId, type, () => ctx.routes!.routeFor(type, ctx.params, ctx.organizationId));
  if ('local' in route) {
    if (local) return local(ctx);
    throw notConfigured(type, ctx.nodeId);
  }
  if ('missing' in route) {
    throw new NodeFailure(
      'provider_auth_required',
      `Node '${ctx.nodeId}' (${type}) has no provider in this deployment: ${route.missing}`,
    );
  }
  return route.execute(ctx);
}

/**
 * The estimate of a type with a local route: nothing when the node runs
 * locally, `reserve` when it asks for a provider. A deployment that routes
 * the type to a provider by NODE_ROUTES alone leaves the estimate at 0:
 * agents using it there set their own estimated_cost.
 */
export function localOrProviderEstimate(reserve: number) {
  return (params: { provider?: string | undefined; credential_id?: string | undefined }): number =>
    (params.provider !== undefined && params.provider !== 'local') || params.credential_id !== undefined ? reserve : 0;
}
