import path from 'node:path';
import { H264_AAC_MP4, MP4_OUTPUT, producedVideoMetadata } from '@weft/media';
import { z } from 'zod';
import { defineNode } from '../definition';
import { inputArgs, openSource, runOnSources, sourceFailure, sourceIds } from '../media-sources';
import { providerParams, videoPort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure } from '../types';
import { executeRouted, localOrProviderEstimate } from '../provider-route';

const PORT = 'video';
const MODEL = 'lanczos';

/** The largest side H.264 encodes here (also video_edit's largest resize). */
const MAX_SIDE = 8192;

/**
 * A video params.factor times larger. The worker's own route resizes with
 * Lanczos: sharper than bilinear, no detail invented; a provider adapter may
 * serve the type with a model that synthesises detail.
 */
export const upscaleVideo = defineNode({
  type: 'upscale_video',
  serving: 'local_or_provider',
  description: 'The video at `video` params.factor times larger.',
  inputs: { video: videoPort('The video') },
  params: z.object({
    ...providerParams,
    factor: z
      .union([z.literal(2), z.literal(4)])
      .default(2)
      .describe('How many times wider and higher the result is'),
  }),
  output: { kinds: ['videos'] },
  localRoute: { model: MODEL },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: localOrProviderEstimate(1000),
  execute: (ctx) =>
    executeRouted('upscale_video', ctx, async () => {
      const { factor, model } = ctx.params;
      // The local route has one model: a node that names another must route to a provider.
      if (model !== undefined && model !== MODEL) {
        throw new NodeFailure(
          'invalid_input',
          `Node '${ctx.nodeId}': params.model '${model}' is not served here (only '${MODEL}')`,
        );
      }
      const ids = sourceIds(ctx, PORT);
      const dir = await ctx.workDir();
      const produced = await storeEach(ctx, ids, async (id, index) => {
        const source = await openSource(ctx, PORT, id, 'video');
        const video = source.video!;
        // Sides of the result made even (H.264), from the source's possibly odd ones.
        const width = 2 * Math.floor((video.width * factor) / 2);
        const height = 2 * Math.floor((video.height * factor) / 2);
        if (width > MAX_SIDE || height > MAX_SIDE) {
          throw sourceFailure(
            ctx,
            PORT,
            id,
            `is ${video.width}×${video.height}: ${factor} times that is over ${MAX_SIDE} pixels a side`,
          );
        }
        const out = path.join(dir, `upscaled-${index}.mp4`);
        await runOnSources(
          ctx,
          [source],
          [
            ...inputArgs([source]),
            '-map',
            `0:${video.stream}`,
            '-vf',
            `scale=${width}:${height}:flags=${MODEL},format=yuv420p`,
            ...(source.audio ? ['-map', '0:a:0'] : []),
            ...H264_AAC_MP4,
            out,
          ],
        );
        const metadata = producedVideoMetadata({
          width,
          height,
          frameRate: video.frameRate,
          duration: source.duration,
          audio: source.audio,
        });
        return { path: out, ...MP4_OUTPUT, metadata };
      });
      return { output: { type: 'videos', value: produced } };
    }),
});
