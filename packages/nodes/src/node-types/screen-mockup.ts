import { z } from 'zod';
import { defineNode } from '../definition';
import { hexColor } from '../media-params';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** Places a screenshot into a device frame shipped with Weft. */
export const screenMockup = defineNode({
  type: 'screen_mockup',
  description: 'Places each screenshot at `image` into the device frame params.device, on params.background.',
  serving: 'built_in',
  inputs: { image: imagePort('The screenshots') },
  params: z.object({
    device: z.enum(['phone', 'tablet', 'laptop', 'browser']).default('phone'),
    background: hexColor.default('#f3f4f6'),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('screen_mockup'),
});
