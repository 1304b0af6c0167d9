// @weft/providers: the provider adapters. They serve the node types that
// @weft/nodes declares with serving 'provider', reaching the nodes through
// NodeContext.routes (ADR 0030): nodes never import this package.
import { openAIAdapter, type OpenAISettings } from './openai/openai-adapter';
import { nodeRoutes, type DeploymentRoutes } from './node-routes';
import { parsePriceTable } from './prices';
import { parseRouteTable } from './route-table';

export { parseRouteTable, type RouteEntry, type RouteTable } from './route-table';
export { creditsFor, DEFAULT_PRICES, parsePriceTable, type PriceTable, type TokenPrice } from './prices';
export type { DeploymentRoutes } from './node-routes';
export type { OpenAISettings } from './openai/openai-adapter';
export { priceTableEnvShape, providerRouteEnvShape } from './provider-env';

export interface ProviderSettings {
  openai: OpenAISettings;
  /** NODE_ROUTES as the operator wrote it. */
  nodeRoutes?: string;
  /** PRICE_TABLE as the operator wrote it (JSON). */
  priceTable?: string;
}

/** The routes of a deployment from its settings; throws an Error naming a malformed setting. */
export function createNodeRoutes(settings: ProviderSettings): DeploymentRoutes {
  const prices = parsePriceTable(settings.priceTable);
  return nodeRoutes([openAIAdapter(settings.openai, prices)], parseRouteTable(settings.nodeRoutes));
}
