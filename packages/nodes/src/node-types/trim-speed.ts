import { z } from 'zod';
import { defineNode } from '../definition';
import { seconds } from '../media-params';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** Cuts a video or audio file and changes its speed. */
export const trimSpeed = defineNode({
  type: 'trim_speed',
  description:
    'Cuts each video or audio file at `media` to params.start–params.end seconds and plays it params.speed ' +
    'times as fast (audio pitch kept).',
  serving: 'built_in',
  inputs: { media: { accepts: ['videos', 'audio'], required: true, many: false, description: 'Video or audio' } },
  params: z
    .object({
      start: seconds.default(0),
      end: seconds.optional().describe('Default: the end'),
      speed: z.number().min(0.25).max(4).default(1),
    })
    .refine((p) => p.end === undefined || p.end > p.start, { error: 'end must be after start', path: ['end'] }),
  output: { sameAs: 'media' },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('trim_speed'),
});
