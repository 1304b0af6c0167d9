import { defineNode } from '../definition';
import { noParams, videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** A video without its sound. */
export const removeAudio = defineNode({
  type: 'remove_audio',
  description: 'Each video at `video` without sound (the video stream copied, not re-encoded).',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: noParams,
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('remove_audio'),
});
