import { z } from 'zod';
import { defineNode } from '../definition';
import { hexColor } from '../media-params';
import { textPort, videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** Burns subtitles into a video. */
export const videoSubtitle = defineNode({
  type: 'video_subtitle',
  description:
    'Burns the subtitles at `subtitles` (SRT or WebVTT text, or plain text shown for the whole video) into ' +
    'each video at `video`.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos'), subtitles: textPort('SRT, WebVTT or plain text') },
  params: z.object({
    font_size: z.number().int().min(6).max(300).default(36),
    color: hexColor.default('#ffffff'),
    position: z.enum(['bottom', 'top']).default('bottom'),
  }),
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('video_subtitle'),
});
