import type { NodeType } from '@weft/contracts';

// What each node type becomes on fal: the app (model) serving it by default,
// and how the node's ports and params map to that app's input. The models
// are data: an operator names another app with NODE_ROUTES=<type>=fal:<app>
// or a node with params.model, and the same mapping applies to it (the
// node's params.options reach the input as they are, for what an app needs
// besides). The ids and fields are those of the apps' documented inputs
// (the `EndpointTypeMap` of @fal-ai/client).

/** How a node param becomes fields of the app's input (fal-input.ts holds the conversions). */
export type ParamMapping =
  | 'num_images' // count → num_images
  | 'image_size' // aspect_ratio → image_size: a preset (landscape_16_9) or {width, height}
  | 'aspect_ratio' // aspect_ratio → aspect_ratio as it is ("16:9")
  | 'loras' // loras [{url, scale}] → loras [{path, scale}]
  | 'duration_text' // duration → duration as a string of whole seconds ("5")
  | 'music_length_ms' // duration → music_length_ms
  | 'upscale_factor'; // factor → upscale_factor

/** What the answer holds: the kind of its files, and the fields holding them (a file or a list of files). */
export interface ResultMapping {
  kind: 'image' | 'video' | 'audio';
  fields: readonly string[];
}

/** When an app replaces the default: a port linked, a port not linked, a param given. */
export type Variant = ({ linked: string } | { unlinked: string } | { param: string }) & { model: string };

export interface FalTypeMapping {
  /** The app serving the type when the route names none. */
  defaultModel: string;
  /**
   * The app used instead of the default when an optional port is linked or
   * not, or a param given: the default cannot take it (text-to-video has no
   * first frame). The first that applies is used. Only the default is
   * replaced: an app the route or node names is theirs.
   */
  variants?: readonly Variant[];
  /** Media port → the input field given the URL of the file uploaded to fal storage (`[]`: a list of URLs). */
  files?: Readonly<Record<string, string>>;
  /** Text port → input field. */
  texts?: Readonly<Record<string, string>>;
  /** Node param → how it reaches the input. */
  params?: Readonly<Record<string, ParamMapping>>;
  result: ResultMapping;
  /** What its price counts: images (and megapixels), seconds of the media made, or requests. */
  unit: 'images' | 'seconds' | 'requests';
}

const images: ResultMapping = { kind: 'image', fields: ['images', 'image'] };
const video: ResultMapping = { kind: 'video', fields: ['video'] };
const audio: ResultMapping = { kind: 'audio', fields: ['audio', 'audio_file'] };

export const FAL_MODELS: Partial<Record<NodeType, FalTypeMapping>> = {
  image_generation: {
    defaultModel: 'fal-ai/flux/dev',
    variants: [
      { param: 'loras', model: 'fal-ai/flux-lora' },
      { linked: 'image', model: 'fal-ai/flux/dev/image-to-image' },
    ],
    files: { image: 'image_url' },
    texts: { prompt: 'prompt' },
    params: { count: 'num_images', aspect_ratio: 'image_size', loras: 'loras' },
    result: images,
    unit: 'images',
  },
  image_generation_lora: {
    defaultModel: 'fal-ai/flux-lora',
    files: { image: 'image_url' },
    texts: { prompt: 'prompt' },
    params: { count: 'num_images', aspect_ratio: 'image_size', loras: 'loras' },
    result: images,
    unit: 'images',
  },
  image_edit: {
    defaultModel: 'fal-ai/flux-pro/kontext',
    files: { image: 'image_url' },
    texts: { prompt: 'prompt' },
    result: images,
    unit: 'images',
  },
  image_erase: {
    // Bria's eraser removes what a mask covers; without a mask, Finegrain's erases what the prompt names.
    defaultModel: 'fal-ai/bria/eraser',
    variants: [{ unlinked: 'mask', model: 'fal-ai/finegrain-eraser' }],
    files: { image: 'image_url', mask: 'mask_url' },
    texts: { prompt: 'prompt' },
    result: images,
    unit: 'images',
  },
  camera_angle: {
    // The angles themselves (horizontal_angle, vertical_angle, zoom) go in params.options.
    defaultModel: 'fal-ai/qwen-image-edit-2511-multiple-angles',
    files: { image: 'image_urls[]' },
    texts: { prompt: 'additional_prompt' },
    result: images,
    unit: 'images',
  },
  remove_background: {
    defaultModel: 'fal-ai/birefnet',
    files: { image: 'image_url' },
    result: images,
    unit: 'images',
  },
  upscale: {
    defaultModel: 'fal-ai/clarity-upscaler',
    files: { image: 'image_url' },
    params: { factor: 'upscale_factor' },
    result: images,
    unit: 'images',
  },
  video_generation: {
    defaultModel: 'fal-ai/kling-video/v2.5-turbo/pro/text-to-video',
    variants: [{ linked: 'image', model: 'fal-ai/kling-video/v2.5-turbo/pro/image-to-video' }],
    files: { image: 'image_url' },
    texts: { prompt: 'prompt' },
    params: { duration: 'duration_text', aspect_ratio: 'aspect_ratio' },
    result: video,
    unit: 'seconds',
  },
  upscale_video: {
    defaultModel: 'fal-ai/topaz/upscale/video',
    files: { video: 'video_url' },
    params: { factor: 'upscale_factor' },
    result: video,
    unit: 'seconds',
  },
  video_background_removal: {
    defaultModel: 'fal-ai/birefnet/v2/video',
    files: { video: 'video_url' },
    result: video,
    unit: 'seconds',
  },
  music_generation: {
    defaultModel: 'fal-ai/elevenlabs/music',
    texts: { prompt: 'prompt' },
    params: { duration: 'music_length_ms' },
    result: audio,
    unit: 'seconds',
  },
  isolate_sound: {
    defaultModel: 'fal-ai/elevenlabs/audio-isolation',
    files: { audio: 'audio_url' },
    result: audio,
    unit: 'seconds',
  },
};
