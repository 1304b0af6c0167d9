import { openImage, readImageHeader, UnprocessableMediaError } from '@weft/media';
import { asText, assetIds, many, NodeFailure, single, type NodeContext } from '@weft/nodes';
import type OpenAI from 'openai';

type Body = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
export type LlmBody = Omit<Body, 'stream'>;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** What vision models read as they are; any other image is sent as PNG. */
const SENT_AS_IS = new Set(['jpeg', 'png', 'webp', 'gif']);

export interface LlmParams {
  temperature?: number;
  max_tokens?: number;
  json_schema?: Record<string, unknown>;
  options?: Record<string, unknown>;
}

/** The parts of `prompt`: each linked value, and each string of a linked list, is one part. */
function promptParts(ctx: NodeContext): string[] {
  const parts = many(ctx, 'prompt').flatMap((v) =>
    Array.isArray(v.value) && v.value.every((s) => typeof s === 'string') ? (v.value as string[]) : [asText(v)],
  );
  const said = parts.filter((p) => p.trim() !== '');
  if (said.length === 0) {
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the prompt at input 'prompt' is empty`);
  }
  return said;
}

/**
 * An image as a data URL: the model needs the bytes (our presigned URLs may
 * be internal), and only images under the pixel limit are read.
 */
async function imagePart(ctx: NodeContext, assetId: string): Promise<UserPart> {
  const asset = await ctx.assets.read(assetId, ctx.signal);
  let format: string | undefined;
  try {
    format = (await readImageHeader(asset.bytes, ctx.imageLimits)).format;
  } catch (err) {
    const why = err instanceof UnprocessableMediaError ? err.message : 'it is not an image';
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the image at input 'images' cannot be used: ${why}`);
  }
  let bytes = asset.bytes;
  let type = `image/${format === 'jpg' ? 'jpeg' : format}`;
  if (!format || !SENT_AS_IS.has(format)) {
    bytes = await (await openImage(asset.bytes, ctx.imageLimits)).pipeline().png().toBuffer();
    type = 'image/png';
  }
  return { type: 'image_url', image_url: { url: `data:${type};base64,${bytes.toString('base64')}` } };
}

/**
 * The chat completion request of an `llm` node, without `stream` (the call
 * decides; `options.stream: false` is read there).
 */
export async function llmRequest(ctx: NodeContext, model: string): Promise<LlmBody> {
  const messages: Body['messages'] = [];
  if (ctx.inputs.system !== undefined) {
    const system = asText(single(ctx, 'system'));
    if (system.trim() !== '') messages.push({ role: 'system', content: system });
  }
  const parts = promptParts(ctx);
  const imageIds = many(ctx, 'images').flatMap((v) => assetIds(ctx, v));
  const images = await Promise.all(imageIds.map((id) => imagePart(ctx, id)));
  parts.forEach((text, i) => {
    const last = i === parts.length - 1;
    messages.push({ role: 'user', content: last && images.length > 0 ? [{ type: 'text', text }, ...images] : text });
  });
  const { temperature, max_tokens, json_schema, options } = ctx.params as LlmParams;
  const { stream: _stream, stream_options: _streamOptions, ...settings } = options ?? {};
  return {
    // Provider-specific settings first: the node's own params win over them.
    ...settings,
    model,
    messages,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(max_tokens !== undefined ? { max_tokens } : {}),
    ...(json_schema
      ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: json_schema, strict: true } } }
      : {}),
  } as LlmBody;
}
