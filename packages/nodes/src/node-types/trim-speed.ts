import path from 'node:path';
import {
  audioSpeedFilters,
  audioOutputFor,
  evenFrameFilters,
  evenSize,
  H264_AAC_MP4,
  MP4_OUTPUT,
  num,
  producedVideoMetadata,
  videoSpeedFilters,
} from '@weft/media';
import { z } from 'zod';
import { defineNode } from '../definition';
import { seconds } from '../media-params';
import {
  inputArgs,
  openSource,
  pastEnd,
  runOnSources,
  secondsText,
  sourceFailure,
  sourceIds,
  type MediaSource,
} from '../media-sources';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext, ProducedFile } from '../types';
import { single } from '../values';

const PORT = 'media';

interface Cut {
  start: number;
  /** Undefined: to the end. */
  end?: number;
  speed: number;
}

/** The cut checked against the source's length; the end past it (by more than a frame) is a failure. */
function fitCut(ctx: NodeContext, source: MediaSource, cut: Cut): Cut {
  const { duration } = source;
  if (duration === undefined) return cut;
  if (cut.start >= duration) {
    throw sourceFailure(
      ctx,
      PORT,
      source.id,
      `lasts ${secondsText(duration)}: params.start (${secondsText(cut.start)}) is past its end`,
    );
  }
  if (cut.end !== undefined && pastEnd(source, cut.end)) {
    throw sourceFailure(
      ctx,
      PORT,
      source.id,
      `lasts ${secondsText(duration)}: params.end (${secondsText(cut.end)}) is past its end`,
    );
  }
  return { ...cut, end: Math.min(cut.end ?? duration, duration) };
}

/**
 * Seeks the input itself (-ss, -t before -i): ffmpeg asks the store for the
 * bytes from the start of the cut on, and decodes from the keyframe before
 * it, dropping frames up to the exact start.
 */
function seekArgs(cut: Cut): string[] {
  return [
    ...(cut.start > 0 ? ['-ss', num(cut.start)] : []),
    ...(cut.end !== undefined ? ['-t', num(cut.end - cut.start)] : []),
  ];
}

/** How long the result plays, when the end of the cut is known. */
function playedFor(cut: Cut): number | undefined {
  return cut.end !== undefined ? (cut.end - cut.start) / cut.speed : undefined;
}

async function trimVideo(ctx: NodeContext, source: MediaSource, cut: Cut, dir: string, index: number) {
  const out = path.join(dir, `trimmed-${index}.mp4`);
  const video = source.video!;
  const duration = playedFor(cut);
  const videoFilters = [
    ...videoSpeedFilters(cut.speed, video.frameRate),
    ...evenFrameFilters(video.width, video.height),
  ];
  await runOnSources(
    ctx,
    [source],
    [
      ...inputArgs([source], () => seekArgs(cut)),
      '-map',
      `0:${video.stream}`,
      '-vf',
      videoFilters.join(','),
      ...(source.audio ? ['-map', '0:a:0', '-af', audioSpeedFilters(cut.speed, duration).join(',')] : []),
      ...H264_AAC_MP4,
      out,
    ],
  );
  const file: ProducedFile = {
    path: out,
    ...MP4_OUTPUT,
    metadata: producedVideoMetadata({
      ...evenSize(video.width, video.height),
      frameRate: video.frameRate,
      duration,
      audio: source.audio,
    }),
  };
  return file;
}

async function trimAudio(ctx: NodeContext, source: MediaSource, cut: Cut, dir: string, index: number) {
  const format = audioOutputFor(source.info.extension);
  const out = path.join(dir, `trimmed-${index}.${format.extension}`);
  const duration = playedFor(cut);
  await runOnSources(
    ctx,
    [source],
    [
      ...inputArgs([source], () => seekArgs(cut)),
      '-map',
      '0:a:0',
      '-af',
      audioSpeedFilters(cut.speed, duration).join(','),
      ...format.args,
      out,
    ],
  );
  const file: ProducedFile = {
    path: out,
    contentType: format.contentType,
    mediaType: 'audio',
    extension: format.extension,
    metadata: { codec: format.codec, ...(duration !== undefined ? { duration: Number(duration.toFixed(3)) } : {}) },
  };
  return file;
}

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
  async execute(ctx) {
    const input = single(ctx, PORT);
    const isVideo = input.type === 'videos';
    const ids = sourceIds(ctx, PORT, [input]);
    const dir = await ctx.workDir();
    const produced = await storeEach(ctx, ids, async (id, index) => {
      const source = await openSource(ctx, PORT, id, isVideo ? 'video' : 'audio');
      const cut = fitCut(ctx, source, ctx.params);
      const file = isVideo
        ? await trimVideo(ctx, source, cut, dir, index)
        : await trimAudio(ctx, source, cut, dir, index);
      return file;
    });
    return { output: { type: isVideo ? 'videos' : 'audio', value: produced } };
  },
});
