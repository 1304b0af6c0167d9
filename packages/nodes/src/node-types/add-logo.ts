import { z } from 'zod';
import { defineNode } from '../definition';
import { corner } from '../media-params';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** Composites `inputs.logo` onto each image, or every frame of each video, at `inputs.image`. */
export const addLogo = defineNode({
  type: 'add_logo',
  description: 'Composites the logo at `logo` onto each image, or every frame of each video, at `image`.',
  serving: 'built_in',
  inputs: {
    image: { accepts: ['images', 'videos'], required: true, many: false, description: 'Images or videos' },
    logo: imagePort('The logo (transparency kept)'),
  },
  params: z.object({
    position: corner.default('bottom-right'),
    scale: z.number().gt(0).max(1).default(0.2).describe('Logo width ÷ base width'),
    margin: z.number().int().min(0).max(10_000).default(24).describe('Distance from the edges, in pixels'),
    opacity: z.number().min(0).max(1).default(1),
  }),
  output: { sameAs: 'image' },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 5 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('add_logo'),
});
