import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import type OpenAI from 'openai';
import { metered, type Capability, type ProviderCall } from '../capability';
import { openAIFailure } from './openai-failures';
import { llmRequest, type LlmParams } from './llm-request';

/** `llm` through chat completions of any OpenAI-compatible server. */
export function openAILlm(): Capability<OpenAI> {
  return {
    defaultModel: 'gpt-4o-mini',
    async execute(ctx: NodeContext, call: ProviderCall<OpenAI>): Promise<NodeResult> {
      const body = await llmRequest(ctx, call.model);
      const completion = await call.client.chat.completions
        .create(body, { signal: ctx.signal })
        .catch((err: unknown) => {
          throw openAIFailure(err, ctx.nodeId, call.credentialSource);
        });
      const choice = completion.choices[0];
      if (choice?.finish_reason === 'content_filter') {
        throw new NodeFailure(
          'content_policy',
          `Node '${ctx.nodeId}': the provider withheld its answer (content filter)`,
        );
      }
      const content = choice?.message.content;
      if (typeof content !== 'string') {
        const refusal = choice?.message.refusal;
        if (refusal) throw new NodeFailure('content_policy', `Node '${ctx.nodeId}': the model refused: ${refusal}`);
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered no text`);
      }
      const charge = metered(call, {
        input_tokens: completion.usage?.prompt_tokens ?? 0,
        output_tokens: completion.usage?.completion_tokens ?? 0,
      });
      if (!(ctx.params as LlmParams).json_schema) return { output: { type: 'text', value: content }, ...charge };
      let data: unknown;
      try {
        data = JSON.parse(content);
      } catch {
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the model's answer is not the JSON asked for`);
      }
      return { output: { type: 'data', value: data }, ...charge };
    },
  };
}
