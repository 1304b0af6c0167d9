import { z } from 'zod';
import { defineNode } from '../definition';
import { videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** The audio track of a video. */
export const extractAudio = defineNode({
  type: 'extract_audio',
  description: 'The audio track of each video at `video`, as params.format mp3 or wav.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: z.object({ format: z.enum(['mp3', 'wav']).default('mp3') }),
  output: { kinds: ['audio'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('extract_audio'),
});
