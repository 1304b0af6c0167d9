import type { NodeType } from '@weft/contracts';
import { NodeFailure, type NodeContext } from '@weft/nodes';
import { fileOf, textOf, withOptions } from './replicate-inputs';

// Replicate runs any model by its id: what each node type runs by default, and
// how the type's ports and params become that model's input. params.model may
// name another model (`owner/name` for an official model, `owner/name:version`
// for any); it gets the same input, params.options adding what it takes besides.

/** What a model's output becomes: files of a kind, or text. */
export type Produces = 'images' | 'videos' | 'audio' | 'text';

export interface ReplicateModel {
  /** The model when params.model names none. */
  defaultModel: string;
  /** The model's input from the node's ports and params. */
  input(ctx: NodeContext): Promise<Record<string, unknown>>;
  produces: Produces;
  /** For `text`: the text of the prediction's output. */
  text?(output: unknown): string | undefined;
  /**
   * Seconds to wait for the answer on creation (Prefer: wait), for models that
   * answer in about that: polling would add its interval to each call.
   */
  wait?: number;
}

type Params = Record<string, unknown>;
const params = (ctx: NodeContext) => ctx.params as Params;

/** A language model's output: the tokens it streamed, or one string. */
function joinedTokens(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (Array.isArray(output) && output.every((t) => typeof t === 'string')) return output.join('');
  return undefined;
}

/** A transcription: openai/whisper's `transcription`, or the `text` other whisper models answer. */
function transcription(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object') {
    const { transcription, text } = output as { transcription?: unknown; text?: unknown };
    if (typeof transcription === 'string') return transcription;
    if (typeof text === 'string') return text;
  }
  return undefined;
}

/** One LoRA, as black-forest-labs/flux-dev-lora takes it. */
function lora(ctx: NodeContext): Params {
  const loras = (params(ctx).loras ?? []) as { url: string; scale: number }[];
  if (loras.length > 1) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': params.loras: the Replicate route applies one LoRA (${loras.length} given)`,
    );
  }
  return loras[0] ? { lora_weights: loras[0].url, lora_scale: loras[0].scale } : {};
}

async function imageInput(ctx: NodeContext): Promise<Params> {
  const p = params(ctx);
  return withOptions(ctx, {
    prompt: textOf(ctx, 'prompt'),
    image: await fileOf(ctx, 'image', false),
    aspect_ratio: p.aspect_ratio,
    num_outputs: p.count,
    ...(ctx.nodeType === 'image_generation_lora' ? lora(ctx) : {}),
  });
}

const WHISPER_FORMATS: Record<string, string> = { text: 'plain text', srt: 'srt', vtt: 'vtt' };

export const REPLICATE_MODELS: Partial<Record<NodeType, ReplicateModel>> = {
  llm: {
    defaultModel: 'meta/meta-llama-3-8b-instruct',
    produces: 'text',
    wait: 10,
    async input(ctx) {
      const p = params(ctx);
      if (p.json_schema) {
        throw new NodeFailure(
          'invalid_input',
          `Node '${ctx.nodeId}': params.json_schema: Replicate's language models take no JSON schema (route llm to openai)`,
        );
      }
      if (ctx.inputs.images !== undefined) {
        throw new NodeFailure(
          'invalid_input',
          `Node '${ctx.nodeId}': input 'images': the Replicate llm route reads no images (params.options.image takes a URL)`,
        );
      }
      return withOptions(ctx, {
        prompt: textOf(ctx, 'prompt'),
        system_prompt: textOf(ctx, 'system', false),
        temperature: p.temperature,
        max_tokens: p.max_tokens,
      });
    },
    text: joinedTokens,
  },
  image_generation: { defaultModel: 'black-forest-labs/flux-schnell', produces: 'images', input: imageInput },
  image_generation_lora: { defaultModel: 'black-forest-labs/flux-dev-lora', produces: 'images', input: imageInput },
  image_edit: {
    defaultModel: 'black-forest-labs/flux-kontext-pro',
    produces: 'images',
    input: async (ctx) => withOptions(ctx, { prompt: textOf(ctx, 'prompt'), input_image: await fileOf(ctx, 'image') }),
  },
  upscale: {
    defaultModel: 'nightmareai/real-esrgan:42fed1c4974146d4d2414e2be2c5277c7fcf05fcc3a73abf41610695738c1d7b',
    produces: 'images',
    input: async (ctx) => withOptions(ctx, { image: await fileOf(ctx, 'image'), scale: params(ctx).factor }),
  },
  remove_background: {
    defaultModel: '851-labs/background-remover:a029dff38972b5fda4ec5d75d7d1cd25aeff621d2cf4946a41055d7db66b80bc',
    produces: 'images',
    input: async (ctx) => withOptions(ctx, { image: await fileOf(ctx, 'image') }),
  },
  video_generation: {
    defaultModel: 'minimax/video-01',
    produces: 'videos',
    input: async (ctx) =>
      withOptions(ctx, {
        prompt: textOf(ctx, 'prompt'),
        first_frame_image: await fileOf(ctx, 'image', false),
        duration: params(ctx).duration,
        aspect_ratio: params(ctx).aspect_ratio,
      }),
  },
  music_generation: {
    defaultModel: 'meta/musicgen:671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb',
    produces: 'audio',
    input: async (ctx) =>
      withOptions(ctx, { prompt: textOf(ctx, 'prompt'), duration: params(ctx).duration, output_format: 'mp3' }),
  },
  transcribe: {
    defaultModel: 'openai/whisper:8099696689d249cf8b122d833c36ac3f75505c666a395ca40ef26f68e7d3d16e',
    produces: 'text',
    input: async (ctx) =>
      withOptions(ctx, {
        audio: await fileOf(ctx, 'media'),
        language: params(ctx).language,
        transcription: WHISPER_FORMATS[String(params(ctx).format ?? 'text')],
      }),
    text: transcription,
  },
};
