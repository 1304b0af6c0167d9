import type { NodeType } from '@weft/contracts';
import { soundUnderVideo } from '@weft/media';
import path from 'node:path';
import { z } from 'zod';
import { defineNode } from '../definition';
import { knownMetadata } from '../known-metadata';
import { openSource, runOnSources, sourceIds, type MediaSource } from '../media-sources';
import { mediaPort, videoPort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure, type NodeContext } from '../types';

// merge_audio_video and video_add_sound: one behaviour, two defaults.

/**
 * The sound for each video: one sound goes under every video; as many
 * sounds as videos are paired in order.
 */
function soundFor(ctx: NodeContext, videos: string[], sounds: string[]): (index: number) => string {
  if (sounds.length === 1) return () => sounds[0]!;
  if (sounds.length === videos.length) return (index) => sounds[index]!;
  throw new NodeFailure(
    'invalid_input',
    `Node '${ctx.nodeId}': input 'audio' has ${sounds.length} files for ${videos.length} videos at input 'video' ` +
      '(give one sound, or one per video)',
  );
}

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
    async execute(ctx) {
      const videoIds = sourceIds(ctx, 'video');
      const soundOf = soundFor(ctx, videoIds, sourceIds(ctx, 'audio'));
      const sounds = new Map<string, MediaSource>();
      const produced = await storeEach(ctx, videoIds, async (id, index) => {
        const video = await openSource(ctx, 'video', id, 'video');
        const soundId = soundOf(index);
        const sound = sounds.get(soundId) ?? (await openSource(ctx, 'audio', soundId, 'sound'));
        sounds.set(soundId, sound);
        const command = soundUnderVideo({
          video: {
            url: video.url,
            stream: video.probe.videoStream!,
            ...(video.probe.audioStream !== undefined ? { audioStream: video.probe.audioStream } : {}),
            ...(video.probe.duration !== undefined ? { duration: video.probe.duration } : {}),
          },
          sound: {
            url: sound.url,
            stream: sound.probe.audioStream!,
            ...(sound.probe.duration !== undefined ? { duration: sound.probe.duration } : {}),
          },
          mode: ctx.params.mode,
          volume: ctx.params.volume,
          fit: ctx.params.fit,
          videoExtension: video.info.extension,
          outputStem: path.join(await ctx.workDir(), `with-sound-${index}`),
        });
        await runOnSources(ctx, [video, sound], command.args);
        const { width, height, codec, frame_rate } = video.probe.metadata;
        return {
          path: command.output,
          contentType: command.container.contentType,
          mediaType: 'video',
          extension: command.container.extension,
          metadata: knownMetadata({
            width,
            height,
            codec: command.copiesVideo ? codec : 'h264',
            frame_rate,
            duration: command.duration,
          }),
        };
      });
      return { output: { type: 'videos', value: produced } };
    },
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
