import { FILE_DATA_TYPES } from '@weft/contracts';
import type { DataType, NodeType } from '@weft/contracts';
import { z } from 'zod';
import { defineNode, type NodeDefinition, type PortSpec, type Serving } from '../definition';
import { audioPort, imagePort, mediaPort, providerParams, textPort, textsPort, videoPort } from '../ports';
import { PROVIDER_MAX_TIMEOUT_MS } from '../timeouts';
import { executeRouted } from '../provider-route';

// The node types served by provider adapters (docs/providers.md): their ports
// and params, which every adapter serving a type takes alike. The adapter is
// found through ctx.routes (ADR 0030); until one is configured for a type, a
// run reaching one of its nodes fails with provider_auth_required and names
// the setting that would fix it.

interface ProviderType<S extends z.ZodRawShape> {
  type: NodeType;
  description: string;
  inputs: Record<string, PortSpec>;
  params: S;
  output: readonly DataType[];
  defaultTimeoutMs: number;
  serving?: Serving;
  /**
   * Credits to reserve for one call (the agent's estimate sums these). A run is
   * charged what the provider reports it used, at most what it reserved, so an
   * estimate of 0 would make the call free. A function reserves from the node's params.
   */
  reserve?: number | ((params: Record<string, unknown>) => number);
}

function providerType<S extends z.ZodRawShape>(spec: ProviderType<S>) {
  return defineNode({
    type: spec.type,
    description: spec.description,
    serving: spec.serving ?? 'provider',
    inputs: spec.inputs,
    params: z.object({ ...providerParams, ...spec.params }),
    output: { kinds: spec.output },
    lane: 'light',
    rerun: 'new',
    defaultTimeoutMs: spec.defaultTimeoutMs,
    maxTimeoutMs: PROVIDER_MAX_TIMEOUT_MS,
    estimateCost: (params) =>
      typeof spec.reserve === 'function' ? spec.reserve(params as Record<string, unknown>) : (spec.reserve ?? 0),
    execute: (ctx) => executeRouted(spec.type, ctx),
  });
}

const MINUTE = 60_000;
/**
 * What one image call reserves, in credits (1 credit = US$0.001 in the default
 * prices): above the list price of the default models, so the charge of what
 * the provider reports is not cut short by the reservation.
 */
const IMAGE_RESERVE = 80;
const aspectRatio = z
  .string()
  .regex(/^\d{1,4}:\d{1,4}$/, { error: 'aspect_ratio is width:height, like 16:9' })
  .optional()
  .describe('width:height of the result, e.g. 1:1, 16:9');
const targetLanguage = z.string().min(2).describe('The language to translate into (BCP 47, e.g. fr, es-MX)');

const image = (description: string): ProviderType<z.ZodRawShape> => ({
  type: 'image_generation',
  description,
  inputs: {
    prompt: textPort('What to draw'),
    image: imagePort('A reference image', false),
  },
  params: {
    aspect_ratio: aspectRatio,
    count: z.number().int().min(1).max(4).default(1).describe('How many images'),
    loras: z
      .array(z.object({ url: z.string().url(), scale: z.number().min(-4).max(4).default(1) }))
      .optional()
      .describe('LoRA weights to apply: [{url, scale}]'),
  },
  output: ['images'],
  defaultTimeoutMs: 5 * MINUTE,
  reserve: (params) => IMAGE_RESERVE * (typeof params.count === 'number' ? params.count : 1),
});

export const providerTypes: NodeDefinition[] = [
  providerType({
    type: 'llm',
    description: 'A language model answers the prompt; with params.json_schema the answer is data satisfying it.',
    inputs: {
      prompt: textsPort('The prompt (several parts are sent as one message each)'),
      system: textPort('System instructions', false),
      images: imagePort('Images for vision models', false),
    },
    params: {
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().min(1).max(1_000_000).optional(),
      json_schema: z.record(z.string(), z.unknown()).optional().describe('A JSON Schema the answer must satisfy'),
    },
    output: ['text', 'data'],
    defaultTimeoutMs: 2 * MINUTE,
    // About 60 000 tokens of gpt-4o-mini at the default prices: far more than a typical call uses.
    reserve: 10,
  }),
  providerType(image('An image generated from the prompt, optionally guided by a reference image.')),
  providerType({
    ...image('An image generated from the prompt with LoRA weights applied.'),
    type: 'image_generation_lora',
  }),
  ...(['image_edit', 'camera_angle'] as const).map((type) =>
    providerType({
      type,
      description:
        type === 'image_edit'
          ? 'The image at `image` edited as the prompt says.'
          : 'The image at `image` seen from the camera angle the prompt describes.',
      inputs: { image: imagePort('The image to change'), prompt: textPort('What to change') },
      params: {},
      output: ['images'],
      defaultTimeoutMs: 5 * MINUTE,
      reserve: IMAGE_RESERVE,
    }),
  ),
  providerType({
    type: 'image_erase',
    description: 'Removes from the image what the mask covers (or what the prompt names).',
    inputs: {
      image: imagePort('The image'),
      mask: imagePort('White where to erase', false),
      prompt: textPort('What to erase, when there is no mask', false),
    },
    params: {},
    output: ['images'],
    defaultTimeoutMs: 5 * MINUTE,
    reserve: IMAGE_RESERVE,
  }),
  providerType({
    type: 'remove_background',
    description: 'The image at `image` with its background made transparent.',
    inputs: { image: imagePort('The image') },
    params: {},
    output: ['images'],
    defaultTimeoutMs: 5 * MINUTE,
    reserve: 20,
  }),
  providerType({
    type: 'video_background_removal',
    description: 'The video at `video` with its background removed.',
    inputs: { video: videoPort('The video') },
    params: {},
    output: ['videos'],
    defaultTimeoutMs: 30 * MINUTE,
    reserve: 1000,
  }),
  providerType({
    type: 'video_generation',
    description: 'A video generated from the prompt, optionally starting from an image.',
    inputs: { prompt: textPort('What happens'), image: imagePort('The first frame', false) },
    params: {
      duration: z.number().min(1).max(120).optional().describe('Length in seconds'),
      aspect_ratio: aspectRatio,
    },
    output: ['videos'],
    defaultTimeoutMs: 30 * MINUTE,
    reserve: (params) => 100 * (typeof params.duration === 'number' ? params.duration : 8),
  }),
  providerType({
    type: 'music_generation',
    description: 'Music generated from the prompt.',
    inputs: { prompt: textPort('The music to make') },
    params: { duration: z.number().min(1).max(600).optional().describe('Length in seconds') },
    output: ['audio'],
    defaultTimeoutMs: 10 * MINUTE,
    reserve: 200,
  }),
  providerType({
    type: 'transcribe',
    description: 'The speech of the audio or video at `media` as text, SRT or WebVTT.',
    inputs: { media: mediaPort('The recording') },
    params: {
      language: z.string().min(2).optional().describe('The spoken language, when known'),
      format: z.enum(['text', 'srt', 'vtt']).default('text'),
    },
    output: ['text'],
    defaultTimeoutMs: 10 * MINUTE,
    reserve: 100,
  }),
  providerType({
    type: 'clone_voice',
    description: 'A voice made from the recording at `audio`: data holding the voice id.',
    inputs: { audio: audioPort('A recording of the voice'), text: textPort('Its transcript', false) },
    params: {},
    output: ['data'],
    defaultTimeoutMs: 10 * MINUTE,
    reserve: 100,
  }),
  providerType({
    type: 'isolate_sound',
    description: 'The voice of the recording at `audio`, background removed.',
    inputs: { audio: mediaPort('The recording') },
    params: {},
    output: ['audio'],
    defaultTimeoutMs: 10 * MINUTE,
    reserve: 100,
  }),
  providerType({
    type: 'translate_audio',
    description: 'The speech at `audio` dubbed into params.target_language.',
    inputs: { audio: audioPort('The recording') },
    params: { target_language: targetLanguage },
    output: ['audio'],
    defaultTimeoutMs: 30 * MINUTE,
    reserve: 1000,
  }),
  providerType({
    type: 'translate_video',
    description: 'The video at `video` dubbed into params.target_language.',
    inputs: { video: videoPort('The video') },
    params: { target_language: targetLanguage },
    output: ['videos'],
    defaultTimeoutMs: 30 * MINUTE,
    reserve: 2000,
  }),
  ...(
    [
      ['socialads_extractor', 'ads of a social network'],
      ['professionalnetwork_ads_extractor', 'ads of a professional network'],
      ['photosocial_posts_extractor', 'posts of a photo-sharing network'],
      ['professionalnetwork_posts_extractor', 'posts of a professional network'],
      ['shortvideo_extractor', 'short videos'],
    ] as const
  ).map(([type, what]) =>
    providerType({
      type,
      description: `Public ${what} matching the query: a list of items, their media stored as assets of the run.`,
      inputs: { query: textPort('A page, profile, keyword or URL') },
      params: { limit: z.number().int().min(1).max(1000).default(20).describe('At most this many items') },
      output: ['data'],
      defaultTimeoutMs: 10 * MINUTE,
      // The price of an actor the table does not know (apify:*): 10 credits an item and 100 a run.
      reserve: (params) => 100 + 10 * (typeof params.limit === 'number' ? params.limit : 20),
    }),
  ),
  providerType({
    type: 'cloudstorage_find_file',
    description: 'The files under params.prefix in the organization’s cloud storage.',
    inputs: {},
    params: {
      credential_id: z.uuid().describe('The stored credential of the bucket (POST /credentials, provider s3)'),
      prefix: z.string().default('').describe('Key prefix to list'),
      limit: z.number().int().min(1).max(100).default(20).describe('At most this many files (the first by key)'),
    },
    output: ['files'],
    defaultTimeoutMs: 5 * MINUTE,
  }),
  providerType({
    type: 'cloudstorage_upload_file',
    description: 'Uploads the assets at `assets` to params.path in the organization’s cloud storage: data of the keys.',
    inputs: {
      assets: {
        accepts: FILE_DATA_TYPES,
        required: true,
        many: true,
        description: 'What to upload',
      },
    },
    params: {
      credential_id: z.uuid().describe('The stored credential of the bucket (POST /credentials, provider s3)'),
      path: z.string().min(1).describe('Key prefix to write under'),
    },
    output: ['data'],
    defaultTimeoutMs: 10 * MINUTE,
  }),
];
