import { z } from 'zod';
import { defineNode } from '../definition';
import { seconds } from '../media-params';
import { videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

const dimension = z.number().int().min(2).max(8192);
const edit = z.union([
  z.strictObject({
    cut: z
      .array(z.tuple([seconds, seconds]).refine(([s, e]) => e > s, { error: 'a range ends after it starts' }))
      .min(1)
      .describe('Ranges [start, end] in seconds to keep'),
  }),
  z.strictObject({
    crop: z.strictObject({
      x: z.number().int().min(0),
      y: z.number().int().min(0),
      width: dimension,
      height: dimension,
    }),
  }),
  z.strictObject({ resize: z.strictObject({ width: dimension, height: dimension }) }),
  z.strictObject({ fps: z.number().min(1).max(120) }),
  z.strictObject({ mute: z.literal(true) }),
]);

/** Applies a list of edits to a video. */
export const videoEdit = defineNode({
  type: 'video_edit',
  description:
    'Applies params.edits to each video at `video`, in order: {cut: [[start, end], ...]} keeps those ranges, ' +
    '{crop: {x, y, width, height}}, {resize: {width, height}}, {fps: n}, {mute: true}.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: z.object({ edits: z.array(edit).min(1).max(50) }),
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('video_edit'),
});
