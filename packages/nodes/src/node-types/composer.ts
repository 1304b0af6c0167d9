import { z } from 'zod';
import { defineNode } from '../definition';
import { hexColor } from '../media-params';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

const box = {
  x: z.number().int().min(-100_000).max(100_000).default(0),
  y: z.number().int().min(-100_000).max(100_000).default(0),
};
const picture = {
  port: z.string().min(1).describe('The input port holding the image'),
  ...box,
  width: z.number().int().min(1).max(16_384).optional(),
  height: z.number().int().min(1).max(16_384).optional(),
  fit: z.enum(['cover', 'contain', 'fill']).default('contain'),
};

const layer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('color'), color: hexColor }),
  z.strictObject({ kind: z.literal('image'), ...picture }),
  z.strictObject({ kind: z.literal('logo'), ...picture }),
  z.strictObject({
    kind: z.literal('text'),
    text: z.string().max(10_000).optional().describe('The text, or `port` for the text at an input'),
    port: z.string().min(1).optional(),
    ...box,
    width: z.number().int().min(1).max(16_384).optional().describe('Wrap width in pixels'),
    font_size: z.number().int().min(4).max(1000).default(48),
    color: hexColor.default('#000000'),
    font: z.string().min(1).optional().describe('An asset id of a ttf/otf/woff font (e.g. from a brand)'),
  }),
]);

/** One image of `params.width` × `params.height` from `params.layers`, bottom first. */
export const composer = defineNode({
  type: 'composer',
  description:
    'One image of params.width × params.height drawn from params.layers, bottom first: colour, image, logo ' +
    'and text layers; images come from the input ports the layers name.',
  serving: 'built_in',
  inputs: {},
  otherInputs: {
    accepts: ['images', 'text', 'data'],
    required: false,
    many: false,
    description: 'An image, text or brand a layer names by its port',
  },
  params: z.object({
    width: z.number().int().min(1).max(8192).default(1080),
    height: z.number().int().min(1).max(8192).default(1080),
    layers: z.array(layer).min(1).max(100),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('composer'),
});
