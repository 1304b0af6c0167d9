import { z } from 'zod';
import { defineNode } from '../definition';
import { hexColor } from '../media-params';
import { dataPort, imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

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
  execute: notBuiltYet('match_brand_colors'),
});
