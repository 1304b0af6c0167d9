import type { NodeContext, NodeResult, ProviderUsage } from '@weft/nodes';
import { creditsFor, type PriceTable } from './prices';

/** What a capability calls a provider with: the adapter's client for the credential chosen, and the model. */
export interface ProviderCall<C> {
  client: C;
  provider: string;
  model: string;
  prices: PriceTable;
  /** Where the credential came from, for failure messages: the setting or the organization's credential. */
  credentialSource: string;
}

/** How a provider serves one node type: its default model, and the call. */
export interface Capability<C> {
  defaultModel: string;
  execute(ctx: NodeContext, call: ProviderCall<C>): Promise<NodeResult>;
}

/** The cost and usage of a result: the usage the provider reported, priced by the table. */
export function metered(
  call: ProviderCall<unknown>,
  units: ProviderUsage['units'],
): Pick<NodeResult, 'cost' | 'usage'> {
  return {
    cost: creditsFor(call.prices, call.provider, call.model, units),
    usage: { provider: call.provider, model: call.model, units },
  };
}
