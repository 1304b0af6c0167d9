import path from 'node:path';
import {
  chain,
  evenFrameFilters,
  evenSize,
  graph,
  H264_AAC_MP4,
  MP4_OUTPUT,
  producedVideoMetadata,
  streamOf,
} from '@weft/media';
import { z } from 'zod';
import { defineNode } from '../definition';
import { seconds } from '../media-params';
import { inputArgs, openSource, runOnSources, sourceFailure, sourceIds } from '../media-sources';
import { videoPort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { EditProblem, planEdits, type Edit } from '../video-edit-plan';

const PORT = 'video';

const dimension = z.number().int().min(2).max(8192);
const edit = z.union([
  z.strictObject({
    cut: z
      .array(z.tuple([seconds, seconds]).refine(([s, e]) => e > s, { error: 'a range ends after it starts' }))
      .min(1)
      .describe('Ranges [start, end] in seconds to keep'),
  }),
  z.strictObject({
    crop: z.strictObject({
      x: z.number().int().min(0),
      y: z.number().int().min(0),
      width: dimension,
      height: dimension,
    }),
  }),
  z.strictObject({ resize: z.strictObject({ width: dimension, height: dimension }) }),
  z.strictObject({ fps: z.number().min(1).max(120) }),
  z.strictObject({ mute: z.literal(true) }),
]);

/** Applies a list of edits to a video. */
export const videoEdit = defineNode({
  type: 'video_edit',
  description:
    'Applies params.edits to each video at `video`, in order: {cut: [[start, end], ...]} keeps those ranges, ' +
    '{crop: {x, y, width, height}}, {resize: {width, height}}, {fps: n}, {mute: true}.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: z.object({ edits: z.array(edit).min(1).max(50) }),
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const ids = sourceIds(ctx, PORT);
    const dir = await ctx.workDir();
    const produced = await storeEach(ctx, ids, async (id, index) => {
      const source = await openSource(ctx, PORT, id, 'video');
      const video = source.video!;
      let plan;
      try {
        plan = planEdits(
          ctx.params.edits as Edit[],
          {
            width: video.width,
            height: video.height,
            ...(video.frameRate ? { frameRate: video.frameRate } : {}),
            ...(source.duration !== undefined ? { duration: source.duration } : {}),
            audio: source.audio,
          },
          streamOf(0, 'a:0'),
        );
      } catch (err) {
        if (err instanceof EditProblem) throw sourceFailure(ctx, PORT, id, `cannot be edited: ${err.message}`);
        throw err;
      }
      const { result } = plan;
      const videoFilters = [...plan.videoFilters, ...evenFrameFilters(result.width, result.height), 'format=yuv420p'];
      const out = path.join(dir, `edited-${index}.mp4`);
      await runOnSources(
        ctx,
        [source],
        [
          ...inputArgs([source]),
          '-filter_complex',
          graph([chain([streamOf(0, video.stream)], videoFilters, ['v']), ...plan.audioChains]),
          '-map',
          '[v]',
          ...(plan.audioOutput === undefined
            ? []
            : ['-map', plan.audioChains.length > 0 ? `[${plan.audioOutput}]` : plan.audioOutput]),
          ...H264_AAC_MP4,
          out,
        ],
      );
      const metadata = producedVideoMetadata({
        ...evenSize(result.width, result.height),
        frameRate: result.frameRate,
        duration: result.duration,
        audio: result.audio,
      });
      return { path: out, ...MP4_OUTPUT, metadata };
    });
    return { output: { type: 'videos', value: produced } };
  },
});
