import path from 'node:path';
import {
  chain,
  COMMON_AUDIO,
  evenSize,
  fitToFrame,
  graph,
  H264_AAC_MP4,
  MP4_OUTPUT,
  producedVideoMetadata,
  silence,
  streamOf,
} from '@weft/media';
import { defineNode } from '../definition';
import { inputArgs, openSource, runOnSources, sourceFailure, sourceIds, type MediaSource } from '../media-sources';
import { noParams } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext } from '../types';
import { many } from '../values';

const PORT = 'videos';

/** The frame rate of the result when the first clip does not say its own. */
const DEFAULT_FRAME_RATE = 30;

/**
 * The -filter_complex joining `clips`: each brought to the first one's
 * format, its sound (or silence as long as the clip, when it has none, so
 * that the next clip's sound starts with its picture) brought to one format,
 * then all concatenated. No sound track at all when no clip has sound.
 */
function joinGraph(
  ctx: NodeContext,
  clips: MediaSource[],
  frame: { width: number; height: number; frameRate: number },
) {
  const withSound = clips.some((c) => c.audio);
  const chains: string[] = [];
  const segments: string[] = [];
  for (const [i, clip] of clips.entries()) {
    chains.push(chain([streamOf(i, clip.video!.stream)], fitToFrame(frame), [`v${i}`]));
    segments.push(`v${i}`);
    if (!withSound) continue;
    if (clip.audio) chains.push(chain([streamOf(i, 'a:0')], [COMMON_AUDIO], [`a${i}`], 'audio'));
    else {
      if (clip.duration === undefined) throw sourceFailure(ctx, PORT, clip.id, 'has no sound and no known duration');
      chains.push(chain([], silence(clip.duration), [`a${i}`], 'audio'));
    }
    segments.push(`a${i}`);
  }
  chains.push(chain(segments, [`concat=n=${clips.length}:v=1:a=${withSound ? 1 : 0}`], withSound ? ['v', 'a'] : ['v']));
  return { filter: graph(chains), withSound };
}

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
    const { filter, withSound } = joinGraph(ctx, clips, frame);
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
