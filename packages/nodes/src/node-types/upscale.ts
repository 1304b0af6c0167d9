import { z } from 'zod';
import { defineNode } from '../definition';
import { imageFile, keptFormat, mapImages, orUnreadable } from '../image-io';
import { imagePort, providerParams } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure } from '../types';
import { executeRouted, localOrProviderEstimate } from '../provider-route';

const PORT = 'image';

/**
 * Each image params.factor times wider and higher. Its local route resamples
 * (Lanczos, no detail is invented); a provider adapter may serve it otherwise.
 */
export const upscale = defineNode({
  type: 'upscale',
  serving: 'local_or_provider',
  description: 'The image at `image` params.factor times larger.',
  inputs: { image: imagePort('The image') },
  params: z.object({
    ...providerParams,
    factor: z
      .union([z.literal(2), z.literal(4)])
      .default(2)
      .describe('How many times wider and higher the result is'),
  }),
  output: { kinds: ['images'] },
  localRoute: { model: 'lanczos3' },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 5 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: localOrProviderEstimate(50),
  execute: (ctx) =>
    executeRouted('upscale', ctx, async () => {
      const { factor } = ctx.params;
      const produced = await mapImages(ctx, PORT, async ({ id, image, width, height }) => {
        const size = { width: width * factor, height: height * factor };
        // The result must stay decodable downstream, under the same limit as its input.
        if (size.width * size.height > ctx.imageLimits.maxPixels) {
          throw new NodeFailure(
            'invalid_input',
            `Node '${ctx.nodeId}': the image at input '${PORT}' (asset ${id}) would be ${size.width}×${size.height} ` +
              `upscaled, over the limit of ${ctx.imageLimits.maxPixels} pixels`,
          );
        }
        const format = keptFormat(image.meta);
        const bytes = await orUnreadable(ctx, PORT, id, () =>
          image
            .pipeline()
            .resize({ ...size, fit: 'fill', kernel: 'lanczos3' })
            .toFormat(format)
            .toBuffer(),
        );
        return imageFile(bytes, format, { ...size, upscale_factor: factor });
      });
      return { output: { type: 'images', value: produced } };
    }),
});
