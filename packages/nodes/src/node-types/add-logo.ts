import path from 'node:path';
import { overlayImageOnVideo, probeMedia, UnprocessableMediaError } from '@weft/media';
import sharp from 'sharp';
import { z } from 'zod';
import { defineNode } from '../definition';
import { imageFile, imageIds, keptFormat, mapImages, orUnreadable, readPortImage, type PortImage } from '../image-io';
import { placeLogo, type LogoSettings } from '../logo-placement';
import { corner } from '../media-params';
import { urlAt } from '../port-assets';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure, type NodeContext } from '../types';
import { assetIds, single } from '../values';

const BASE = 'image';
const LOGO = 'logo';

/** How long ffprobe may take to read a video's header. */
const PROBE_TIMEOUT_MS = 60_000;

async function onImages(ctx: NodeContext<LogoSettings>, logo: PortImage): Promise<string[]> {
  return mapImages(ctx, BASE, async ({ id, image, width, height }) => {
    const placed = await orUnreadable(ctx, LOGO, logo.id, () => placeLogo(logo.image, { width, height }, ctx.params));
    const format = keptFormat(image.meta);
    const bytes = await orUnreadable(ctx, BASE, id, () =>
      image
        .pipeline()
        .composite([
          {
            input: placed.rgba,
            raw: { width: placed.width, height: placed.height, channels: 4 },
            left: placed.left,
            top: placed.top,
          },
        ])
        .toFormat(format)
        .toBuffer(),
    );
    return imageFile(bytes, format, { width, height });
  });
}

function notAVideo(ctx: NodeContext, id: string, why: string): NodeFailure {
  return new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the video at input '${BASE}' (asset ${id}) ${why}`);
}

async function onVideos(ctx: NodeContext<LogoSettings>, ids: string[], logo: PortImage): Promise<string[]> {
  const dir = await ctx.workDir();
  const produced: string[] = [];
  for (const [index, id] of ids.entries()) {
    const { info, url } = await urlAt(ctx, BASE, id);
    if (info.mediaType !== 'video')
      throw notAVideo(ctx, id, `is ${info.mediaType === 'audio' ? 'audio' : 'not a video'}`);
    try {
      const probe = await probeMedia(url, { ...ctx.tools, timeoutMs: PROBE_TIMEOUT_MS }, ctx.signal);
      const width = Number(probe.metadata.width);
      const height = Number(probe.metadata.height);
      if (probe.videoStream === undefined || !width || !height) throw notAVideo(ctx, id, 'has no video track');
      const placed = await orUnreadable(ctx, LOGO, logo.id, () => placeLogo(logo.image, { width, height }, ctx.params));
      const imagePath = path.join(dir, `logo-${index}.png`);
      await sharp(placed.rgba, { raw: { width: placed.width, height: placed.height, channels: 4 } })
        .png()
        .toFile(imagePath);
      const output = path.join(dir, `out-${index}.mp4`);
      const audioCodec = probe.metadata.audio_codec;
      await overlayImageOnVideo(
        { ffmpeg: ctx.tools.ffmpeg, signal: ctx.signal },
        {
          url,
          videoStream: probe.videoStream,
          audioCodec: typeof audioCodec === 'string' ? audioCodec : undefined,
          imagePath,
          left: placed.left,
          top: placed.top,
          output,
        },
      );
      produced.push(
        await ctx.assets.store(
          {
            path: output,
            contentType: 'video/mp4',
            mediaType: 'video',
            extension: 'mp4',
            metadata: {
              width: width - (width % 2),
              height: height - (height % 2),
              codec: 'h264',
              ...(probe.duration !== undefined ? { duration: probe.duration } : {}),
            },
          },
          index,
          ctx.signal,
        ),
      );
    } catch (err) {
      // The store's failure propagates for the engine to retry; the content's is the input's.
      if (err instanceof UnprocessableMediaError) {
        throw notAVideo(ctx, id, 'cannot be read as a video');
      }
      throw err;
    }
  }
  return produced;
}

/** Composites `inputs.logo` onto each image, or every frame of each video, at `inputs.image`. */
export const addLogo = defineNode({
  type: 'add_logo',
  description: 'Composites the logo at `logo` onto each image, or every frame of each video, at `image`.',
  serving: 'built_in',
  inputs: {
    image: { accepts: ['images', 'videos'], required: true, many: false, description: 'Images or videos' },
    logo: imagePort('The logo (transparency kept)'),
  },
  params: z.object({
    position: corner.default('bottom-right'),
    scale: z.number().gt(0).max(1).default(0.2).describe('Logo width ÷ base width'),
    margin: z.number().int().min(0).max(10_000).default(24).describe('Distance from the edges, in pixels'),
    opacity: z.number().min(0).max(1).default(1),
  }),
  output: { sameAs: 'image' },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 5 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const [logoId] = imageIds(ctx, LOGO);
    const logo = await readPortImage(ctx, LOGO, logoId!);
    const base = single(ctx, BASE);
    if (base.type === 'videos') {
      const ids = assetIds(ctx, base);
      if (ids.length === 0)
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' received no video at input '${BASE}'`);
      return { output: { type: 'videos', value: await onVideos(ctx, ids, logo) } };
    }
    return { output: { type: 'images', value: await onImages(ctx, logo) } };
  },
});
