import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import type OpenAI from 'openai';
import { metered, type Capability, type ProviderCall } from '../capability';
import { openAIFailure } from './openai-failures';
import { llmRequest, type LlmBody, type LlmParams } from './llm-request';

/** What the model answered, streamed or not. */
interface Answer {
  /** null when the model said nothing as text (a refusal, or no choice). */
  content: string | null;
  refusal: string | null;
  finishReason: string | null;
  usage: OpenAI.Completions.CompletionUsage | null | undefined;
}

/**
 * `llm` through chat completions of any OpenAI-compatible server. Where the
 * node can send its text as it comes (ctx.emitDelta), the answer is streamed
 * (`stream: true`, the usage from the stream's last chunk); the result is the
 * same either way. `options: {stream: false}` asks a server that cannot
 * stream for the whole answer at once.
 */
export function openAILlm(): Capability<OpenAI> {
  return {
    defaultModel: 'gpt-4o-mini',
    async execute(ctx: NodeContext, call: ProviderCall<OpenAI>): Promise<NodeResult> {
      const body = await llmRequest(ctx, call.model);
      const { options } = ctx.params as LlmParams;
      const answer =
        ctx.emitDelta && options?.stream !== false
          ? await streamed(ctx, call, body, ctx.emitDelta)
          : answerOf(
              await call.client.chat.completions
                .create({ ...body, stream: false }, { signal: ctx.signal })
                .catch((err: unknown) => {
                  throw openAIFailure(err, ctx.nodeId, call.credentialSource);
                }),
            );
      if (answer.finishReason === 'content_filter') {
        throw new NodeFailure(
          'content_policy',
          `Node '${ctx.nodeId}': the provider withheld its answer (content filter)`,
        );
      }
      const { content } = answer;
      if (typeof content !== 'string') {
        if (answer.refusal)
          throw new NodeFailure('content_policy', `Node '${ctx.nodeId}': the model refused: ${answer.refusal}`);
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered no text`);
      }
      const charge = metered(call, {
        input_tokens: answer.usage?.prompt_tokens ?? 0,
        output_tokens: answer.usage?.completion_tokens ?? 0,
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

function answerOf(completion: OpenAI.Chat.Completions.ChatCompletion): Answer {
  const choice = completion.choices[0];
  return {
    content: choice?.message.content ?? null,
    refusal: choice?.message.refusal ?? null,
    finishReason: choice?.finish_reason ?? null,
    usage: completion.usage,
  };
}

/**
 * The answer read chunk by chunk, each piece of text handed to `emit` as it
 * arrives. A server that ignores `stream` and answers the whole completion
 * as JSON is read as such.
 */
async function streamed(
  ctx: NodeContext,
  call: ProviderCall<OpenAI>,
  body: LlmBody,
  emit: (text: string) => void,
): Promise<Answer> {
  const fail = (err: unknown) => openAIFailure(err, ctx.nodeId, call.credentialSource);
  const { data: stream, response } = await call.client.chat.completions
    .create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal: ctx.signal })
    .withResponse()
    .catch((err: unknown) => {
      throw fail(err);
    });
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const completion = (await response.json().catch((err: unknown) => {
      throw ctx.signal.aborted ? err : brokenOff(ctx);
    })) as OpenAI.Chat.Completions.ChatCompletion;
    return answerOf(completion);
  }
  const answer: Answer = { content: null, refusal: null, finishReason: null, usage: undefined };
  try {
    for await (const chunk of stream) {
      if (chunk.usage) answer.usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const { content, refusal } = choice.delta;
      if (typeof content === 'string') {
        answer.content = (answer.content ?? '') + content;
        if (content !== '') emit(content);
      }
      if (refusal) answer.refusal = (answer.refusal ?? '') + refusal;
      if (choice.finish_reason) answer.finishReason = choice.finish_reason;
    }
  } catch (err) {
    // An abort is the engine's to tell (cancel or timeout); an error event is the provider's failure.
    if (ctx.signal.aborted) throw err;
    const failure = fail(err);
    throw failure instanceof NodeFailure ? failure : brokenOff(ctx);
  }
  return answer;
}

const brokenOff = (ctx: NodeContext) =>
  new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider's answer broke off`);
