import type { NodeType } from '@weft/contracts';
import { z } from 'zod';
import { defineNode } from '../definition';
import { mediaPort, videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

// merge_audio_video and video_add_sound: one behaviour, two defaults.

function audioUnderVideo(type: NodeType, mode: 'replace' | 'mix', description: string) {
  return defineNode({
    type,
    description,
    serving: 'built_in',
    inputs: {
      video: videoPort('The video'),
      audio: mediaPort('The sound: audio, or a video whose sound is used'),
    },
    params: z.object({
      mode: z.enum(['replace', 'mix']).default(mode).describe('replace the video’s sound, or mix with it'),
      volume: z.number().min(0).max(2).default(1).describe('Of the added sound'),
      fit: z
        .enum(['shortest', 'video'])
        .default('shortest')
        .describe('shortest: end with the shorter; video: loop or cut the sound to the video'),
    }),
    output: { kinds: ['videos'] },
    lane: 'heavy',
    rerun: 'same',
    defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
    maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
    estimateCost: () => 0,
    execute: notBuiltYet(type),
  });
}

export const mergeAudioVideo = audioUnderVideo(
  'merge_audio_video',
  'replace',
  'Puts the sound at `audio` under the video at `video`, replacing its sound by default.',
);
export const videoAddSound = audioUnderVideo(
  'video_add_sound',
  'mix',
  'Puts the sound at `audio` under the video at `video`, mixed with its sound by default.',
);
