import { z } from 'zod';
import { defineNode } from '../definition';
import { seconds } from '../media-params';
import { videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** One frame of a video as a PNG. */
export const extractVideoFrame = defineNode({
  type: 'extract_video_frame',
  description: 'One frame of each video at `video` as a PNG: params.at seconds, `first` or `last`.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: z.object({
    at: z
      .union([seconds, z.enum(['first', 'last'])])
      .default('first')
      .describe('Seconds, `first` or `last`'),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('extract_video_frame'),
});
