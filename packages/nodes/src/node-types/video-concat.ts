import { defineNode } from '../definition';
import { noParams } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** Joins videos into one MP4. */
export const videoConcat = defineNode({
  type: 'video_concat',
  description:
    'Joins the videos at `videos` (in order) into one MP4 (H.264/AAC), scaled and padded to the first one’s ' +
    'size and frame rate; a clip without sound gets silence.',
  serving: 'built_in',
  inputs: { videos: { accepts: ['videos'], required: true, many: true, description: 'The clips, in order' } },
  params: noParams,
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('video_concat'),
});
