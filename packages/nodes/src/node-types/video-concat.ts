import path from 'node:path';
import { evenSize, H264_AAC_MP4, joinClipsGraph, MP4_OUTPUT, producedVideoMetadata } from '@weft/media';
import { defineNode } from '../definition';
import { inputArgs, openSource, runOnSources, sourceFailure, sourceIds, type MediaSource } from '../media-sources';
import { noParams } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { many } from '../values';

const PORT = 'videos';

/** The frame rate of the result when the first clip does not say its own. */
const DEFAULT_FRAME_RATE = 30;

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
  async execute(ctx) {
    const ids = sourceIds(ctx, PORT, many(ctx, PORT));
    const clips: MediaSource[] = [];
    for (const id of ids) clips.push(await openSource(ctx, PORT, id, 'video'));
    const first = clips[0]!.video!;
    const frame = { ...evenSize(first.width, first.height), frameRate: first.frameRate ?? DEFAULT_FRAME_RATE };
    const silent = clips.find((c) => !c.audio && c.duration === undefined);
    if (silent && clips.some((c) => c.audio)) {
      throw sourceFailure(
        ctx,
        PORT,
        silent.id,
        'has no sound and no known duration: the silence under it cannot be made',
      );
    }
    const { filter, withSound } = joinClipsGraph(
      clips.map((c) => ({
        videoStream: c.video!.stream,
        audio: c.audio,
        ...(c.duration !== undefined ? { duration: c.duration } : {}),
      })),
      frame,
    );
    const out = path.join(await ctx.workDir(), 'joined.mp4');
    await runOnSources(ctx, clips, [
      ...inputArgs(clips),
      '-filter_complex',
      filter,
      '-map',
      '[v]',
      ...(withSound ? ['-map', '[a]'] : []),
      ...H264_AAC_MP4,
      out,
    ]);
    ctx.signal.throwIfAborted();
    const known = clips.every((c) => c.duration !== undefined);
    const metadata = producedVideoMetadata({
      ...frame,
      ...(known ? { duration: clips.reduce((sum, c) => sum + c.duration!, 0) } : {}),
      audio: withSound,
    });
    const id = await ctx.assets.store({ path: out, ...MP4_OUTPUT, metadata }, 0, ctx.signal);
    return { output: { type: 'videos', value: [id] } };
  },
});
