import type { NodeContext, NodeResult } from '@weft/nodes';

/** How a provider serves one node type: its default model, and the call. */
export interface Capability {
  defaultModel: string;
  execute(ctx: NodeContext, model: string): Promise<NodeResult>;
}
