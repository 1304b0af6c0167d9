import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import type OpenAI from 'openai';
import type { Capability } from '../capability';
import { creditsFor, type PriceTable } from '../prices';
import { openAIFailure } from './openai-failures';
import { llmRequest, type LlmParams } from './llm-request';

/** `llm` through chat completions of any OpenAI-compatible server. */
export function openAILlm(client: OpenAI, prices: PriceTable): Capability {
  return {
    defaultModel: 'gpt-4o-mini',
    async execute(ctx: NodeContext, model: string): Promise<NodeResult> {
      const body = await llmRequest(ctx, model);
      const completion = await client.chat.completions.create(body, { signal: ctx.signal }).catch((err: unknown) => {
        throw openAIFailure(err, ctx.nodeId);
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
      const cost = creditsFor(prices, 'openai', model, {
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
      });
      if (!(ctx.params as LlmParams).json_schema) return { output: { type: 'text', value: content }, cost };
      let data: unknown;
      try {
        data = JSON.parse(content);
      } catch {
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the model's answer is not the JSON asked for`);
      }
      return { output: { type: 'data', value: data }, cost };
    },
  };
}
