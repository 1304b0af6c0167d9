// @weft/providers: the provider adapters. They serve the node types that
// @weft/nodes declares with serving 'provider', reaching the nodes through
// NodeContext.routes (ADR 0030): nodes never import this package.
import { deploymentAdapters } from './adapters';
import type { OrganizationCredentials } from './credentials';
import { nodeRoutes, type DeploymentRoutes } from './node-routes';
import { parsePriceTable } from './prices';
import type { ProviderAdapter } from './provider-adapter';
import type { ProviderEnv } from './provider-env';
import { parseRouteTable } from './route-table';

export { parseRouteTable, type RouteEntry, type RouteTable } from './route-table';
export { creditsFor, DEFAULT_PRICES, parsePriceTable, type PriceTable, type UnitPrice } from './prices';
export type { DeploymentRoutes, RouteDescription } from './node-routes';
export type { OrganizationCredentials, ProviderCredential } from './credentials';
export type { ProviderAdapter } from './provider-adapter';
export { priceTableEnvShape, providerRouteEnvShape, type ProviderEnv } from './provider-env';

export interface RouteDependencies {
  /** The organizations' own credentials (the worker's and gateway's PostgreSQL); without it only the deployment's serve. */
  organizations?: OrganizationCredentials;
  /** OUTBOUND_ALLOWED_HOSTS, which organizations' base URLs obey. */
  outboundAllowList?: readonly string[];
  /** Replaces the adapters the settings make (tests give the adapters of their doubles). */
  adapters?: ProviderAdapter[];
}

/** The routes of a deployment from its settings; throws an Error naming a malformed setting. */
export function createNodeRoutes(env: ProviderEnv, deps: RouteDependencies = {}): DeploymentRoutes {
  return nodeRoutes(deps.adapters ?? deploymentAdapters(env), parseRouteTable(env.NODE_ROUTES), {
    prices: parsePriceTable(env.PRICE_TABLE),
    ...(deps.organizations ? { organizations: deps.organizations } : {}),
    ...(deps.outboundAllowList ? { outboundAllowList: deps.outboundAllowList } : {}),
  });
}
export { storeResultBytes, storeResultStream, storeResultUrl, type ResultKind } from './results';
export { metered, type Capability, type ProviderCall } from './capability';
export { falAdapter, type FalSettings } from './fal/fal-adapter';
export { apifyAdapter, type ApifySettings } from './apify/apify-adapter';
export { openAIAdapter, type OpenAISettings } from './openai/openai-adapter';
export { elevenLabsAdapter, type ElevenLabsSettings } from './elevenlabs/elevenlabs-adapter';
