import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { NodeFailure, type NodeContext } from '@weft/nodes';
import type { ProviderCall } from '../capability';
import { elevenLabsFailure } from './elevenlabs-failures';

export type ElevenLabsCall = ProviderCall<ElevenLabsClient>;

/** What every SDK call of a node is given: the node's signal (cancel and timeout). */
export interface CallOptions {
  abortSignal: AbortSignal;
}

/** The largest file the provider may answer with (a dubbed video is the largest). */
const MAX_ANSWER_BYTES = 2 * 1024 ** 3;

/** Runs an SDK call of the node, its failure mapped to what the run reports. */
export async function sdk<T>(ctx: NodeContext, call: ElevenLabsCall, fn: (options: CallOptions) => Promise<T>) {
  try {
    return await fn({ abortSignal: ctx.signal });
  } catch (err) {
    throw elevenLabsFailure(err, ctx.nodeId, call.credentialSource, ctx.signal);
  }
}

/** The bytes of a binary answer (speech, music, dubbed media), read under the node's signal. */
export async function answerBytes(
  ctx: NodeContext,
  call: ElevenLabsCall,
  fetch: (options: CallOptions) => Promise<ReadableStream<Uint8Array>>,
): Promise<Buffer> {
  return sdk(ctx, call, async (options) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of await fetch(options)) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider's answer is too large`);
      }
      chunks.push(chunk);
    }
    if (size === 0) throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered no audio`);
    return Buffer.concat(chunks);
  });
}

/** params.options: provider-specific fields, sent in the request's body as they are. */
export function extraBody(ctx: NodeContext): { additionalBodyParameters?: Record<string, unknown> } {
  const options = (ctx.params as { options?: Record<string, unknown> }).options;
  return options && Object.keys(options).length > 0 ? { additionalBodyParameters: options } : {};
}
