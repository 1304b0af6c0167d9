import { NodeFailure, type NodeContext } from '@weft/nodes';

// The sizes OpenAI's image and video models draw: params.aspect_ratio picks
// the nearest of the model's, as every adapter maps the shared param onto
// what its provider offers.

const GPT_IMAGE_SIZES = ['1024x1024', '1536x1024', '1024x1536'];
const DALL_E_3_SIZES = ['1024x1024', '1792x1024', '1024x1792'];
const DALL_E_2_SIZES = ['1024x1024'];
/** sora-2 draws these two; sora-2-pro also 1792x1024 and 1024x1792, which options.size may ask for. */
const VIDEO_SIZES = ['1280x720', '720x1280'] as const;

export type VideoSize = (typeof VIDEO_SIZES)[number];

/** width / height of an aspect ratio `w:h` (the param's own check makes it digits). */
export function ratioOf(ctx: NodeContext, aspectRatio: string): number {
  const [w, h] = aspectRatio.split(':').map(Number);
  if (!w || !h) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': params.aspect_ratio '${aspectRatio}' has a zero side`,
    );
  }
  return w / h;
}

/** The size among `sizes` whose shape is nearest `ratio` (compared on a log scale: 2:1 is as far from 1:1 as 1:2). */
function nearest<T extends string>(sizes: readonly T[], ratio: number): T {
  const distance = (size: string) => {
    const [w, h] = size.split('x').map(Number) as [number, number];
    return Math.abs(Math.log(w / h) - Math.log(ratio));
  };
  return sizes.reduce((best, size) => (distance(size) < distance(best) ? size : best));
}

/** The `size` of an images request for `model` nearest `ratio`. */
export function imageSize(model: string, ratio: number): string {
  if (model.startsWith('dall-e-2')) return nearest(DALL_E_2_SIZES, ratio);
  if (model.startsWith('dall-e-3')) return nearest(DALL_E_3_SIZES, ratio);
  // gpt-image-* and the models of compatible servers, which mostly copy them.
  return nearest(GPT_IMAGE_SIZES, ratio);
}

/** The `size` of a video job nearest `ratio`. */
export function videoSize(ratio: number): VideoSize {
  return nearest(VIDEO_SIZES, ratio);
}

/** Pixels of a `WxH` size. */
export function sizeDimensions(size: string): { width: number; height: number } {
  const [width, height] = size.split('x').map(Number) as [number, number];
  return { width, height };
}
