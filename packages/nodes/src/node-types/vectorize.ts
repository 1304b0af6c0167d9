import { z } from 'zod';
import { defineNode } from '../definition';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

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
  execute: notBuiltYet('vectorize'),
});
