import sharp from 'sharp';
import { z } from 'zod';
import { brandOf, normalHex } from '../brand';
import { defineNode } from '../definition';
import { imageFile, keptFormat, mapImages, orUnreadable } from '../image-io';
import { hexColor } from '../media-params';
import { mapToPalette, paletteOf } from '../palette-map';
import { dataPort, imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure, type NodeContext } from '../types';
import { single } from '../values';

const PORT = 'image';
const BRAND = 'brand';

/** The brand's colours when a brand is linked, else params.colors; a NodeFailure when there are none. */
function paletteColors(ctx: NodeContext<{ colors?: string[] | undefined }>): string[] {
  const given = ctx.inputs[BRAND] === undefined ? undefined : single(ctx, BRAND);
  // An optional brand input left out of the run gives null: no brand.
  if (given !== undefined && given.value !== null) {
    const brand = brandOf(given);
    if (!brand) {
      throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the input at '${BRAND}' is not a brand`);
    }
    if (brand.colors.length > 0) return brand.colors;
  }
  if (ctx.params.colors && ctx.params.colors.length > 0) return ctx.params.colors.map(normalHex);
  throw new NodeFailure(
    'invalid_input',
    `Node '${ctx.nodeId}': no palette: the brand at input '${BRAND}' has no colors and params.colors is not given`,
  );
}

/** Maps the colours of an image onto a palette by CIEDE2000 distance. */
export const matchBrandColors = defineNode({
  type: 'match_brand_colors',
  description:
    'Maps the colours of each image at `image` onto the palette of the brand at `brand` (or params.colors) ' +
    'by perceptual distance (CIEDE2000), blended by params.strength.',
  serving: 'built_in',
  inputs: {
    image: imagePort('The images'),
    brand: dataPort('A brand (brand_system_input) whose colors are the palette', false),
  },
  params: z.object({
    colors: z.array(hexColor).min(1).max(64).optional().describe('The palette, when no brand is linked'),
    strength: z.number().min(0).max(1).default(1).describe('0 keeps the image, 1 maps it fully'),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const palette = paletteOf(paletteColors(ctx));
    const produced = await mapImages(ctx, PORT, async ({ id, image, width, height }) => {
      const { data, info } = await orUnreadable(ctx, PORT, id, () =>
        image.pipeline().toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true }),
      );
      await mapToPalette(data, palette, ctx.params.strength, ctx.signal);
      const format = keptFormat(image.meta);
      const mapped = sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } });
      const bytes = await (image.meta.hasAlpha ? mapped : mapped.removeAlpha()).toFormat(format).toBuffer();
      return imageFile(bytes, format, { width, height, palette: palette.rgb.length });
    });
    return { output: { type: 'images', value: produced } };
  },
});
