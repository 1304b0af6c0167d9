import type { CredentialStore } from '@weft/credentials';
import { isDefinedNodeType, definitionOf } from '@weft/nodes';
import { invalid, NotFoundError } from '@weft/errors';
import type { DeploymentRoutes } from '@weft/providers';

export interface RouteChoiceDeps {
  credentials: CredentialStore;
  nodeRoutes: DeploymentRoutes;
}

export interface ChosenRoute {
  type: string;
  provider: string;
  model: string | null;
}

/** A type a provider may serve: refused otherwise, at the path. */
function providerType(type: string): void {
  if (!isDefinedNodeType(type)) throw new NotFoundError(`Node type '${type}'`);
  if (definitionOf(type).serving === 'built_in') {
    throw invalid(['path', 'type'], `${type} is built in: no provider serves it`, 'value_error', type);
  }
}

/** Sends the organization's nodes of `type` to `provider` (and `model`), among the providers the deployment has. */
export async function chooseRoute(
  deps: RouteChoiceDeps,
  organizationId: string,
  type: string,
  choice: { provider: string; model?: string | undefined },
): Promise<ChosenRoute> {
  providerType(type);
  const adapter = deps.nodeRoutes.adapters.get(choice.provider);
  const local = choice.provider === 'local' && definitionOf(type).localRoute !== undefined;
  if (!local && !adapter?.capabilities[type as keyof typeof adapter.capabilities]) {
    const serving = [...deps.nodeRoutes.adapters.values()]
      .filter((a) => a.capabilities[type as keyof typeof a.capabilities])
      .map((a) => a.provider);
    if (definitionOf(type).localRoute) serving.unshift('local');
    throw invalid(
      ['body', 'provider'],
      `${choice.provider} does not serve ${type} here (providers serving it: ${serving.join(', ') || 'none'})`,
      'enum',
      choice.provider,
    );
  }
  await deps.credentials.chooseRoute(organizationId, type, {
    provider: choice.provider,
    ...(choice.model ? { model: choice.model } : {}),
  });
  return { type, provider: choice.provider, model: choice.model ?? null };
}

export async function chosenRoutes(deps: RouteChoiceDeps, organizationId: string): Promise<ChosenRoute[]> {
  const chosen = await deps.credentials.chosenRoutes(organizationId);
  return [...chosen].map(([type, r]) => ({ type, provider: r.provider, model: r.model ?? null }));
}

export async function forgetRoute(deps: RouteChoiceDeps, organizationId: string, type: string): Promise<void> {
  if (!(await deps.credentials.forgetRoute(organizationId, type))) throw new NotFoundError('Route choice');
}
