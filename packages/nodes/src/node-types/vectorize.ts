import { traceColorsToSvg, traceToSvg, UnprocessableMediaError } from '@weft/media';
import { z } from 'zod';
import { defineNode } from '../definition';
import { mapImages, unreadableImage } from '../image-io';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';

const PORT = 'image';

/** Traces an image to SVG. */
export const vectorize = defineNode({
  type: 'vectorize',
  description: 'Traces each image at `image` to an SVG asset: params.colors 1 for black and white, up to 16.',
  serving: 'built_in',
  inputs: { image: imagePort('The images') },
  params: z.object({ colors: z.number().int().min(1).max(16).default(1).describe('Colours in the SVG') }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const { colors } = ctx.params;
    const produced = await mapImages(ctx, PORT, async ({ id, bytes, width, height }) => {
      let svg: string;
      try {
        svg =
          colors === 1
            ? await traceToSvg(bytes, ctx.imageLimits, ctx.signal)
            : (await traceColorsToSvg(bytes, colors, ctx.imageLimits, ctx.signal)).svg;
      } catch (err) {
        // Unreadable, or too complex to trace within the tracer's time and memory.
        if (err instanceof UnprocessableMediaError) throw unreadableImage(ctx, PORT, id);
        throw err;
      }
      return {
        bytes: Buffer.from(svg),
        contentType: 'image/svg+xml',
        mediaType: 'image',
        extension: 'svg',
        metadata: { width, height, colors },
      };
    });
    return { output: { type: 'images', value: produced } };
  },
});
