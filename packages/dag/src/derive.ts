import type { AgentInput, AgentOutput, Flow } from '@weft/contracts';
import { isInputNodeType } from './node-kinds';

// What an agent advertises, derived from its flow (docs/api.md#flows). Computed
// once when a version is published and stored with it, so reads never re-derive.

/** The `*_input` nodes in flow order; `required` defaults to true, `description` to ''. */
export function agentInputs(flow: Flow): AgentInput[] {
  return flow.nodes
    .filter((node) => isInputNodeType(node.type))
    .map((node) => ({
      id: node.id,
      type: node.type,
      description: node.description ?? '',
      required: node.required ?? true,
    }));
}

/** The flow's declared outputs, as copies. */
export function agentOutputs(flow: Flow): AgentOutput[] {
  return (flow.outputs ?? []).map(({ id, type, description }) => ({ id, type, description }));
}

/** True when a run of this flow can pause for a person's decision. */
export function hasHumanReview(flow: Flow): boolean {
  return flow.nodes.some((node) => node.type === 'human_review');
}
