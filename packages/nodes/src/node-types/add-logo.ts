import path from 'node:path';
import { overlayImageOnVideo } from '@weft/media';
import sharp from 'sharp';
import { z } from 'zod';
import { defineNode } from '../definition';
import { imageFile, imageIds, keptFormat, mapImages, orUnreadable, readPortImage, type PortImage } from '../image-io';
import { placeLogo, type LogoSettings } from '../logo-placement';
import { corner } from '../media-params';
import { onSources, openSource, sourceIds } from '../media-sources';
import { imagePort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext } from '../types';
import { single } from '../values';

const BASE = 'image';
const LOGO = 'logo';

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

async function onVideos(ctx: NodeContext<LogoSettings>, ids: string[], logo: PortImage): Promise<string[]> {
  const dir = await ctx.workDir();
  return storeEach(ctx, ids, async (id, index) => {
    const source = await openSource(ctx, BASE, id, 'video');
    const { stream, width, height } = source.video!;
    const placed = await orUnreadable(ctx, LOGO, logo.id, () => placeLogo(logo.image, { width, height }, ctx.params));
    const imagePath = path.join(dir, `logo-${index}.png`);
    await sharp(placed.rgba, { raw: { width: placed.width, height: placed.height, channels: 4 } })
      .png()
      .toFile(imagePath);
    const output = path.join(dir, `out-${index}.mp4`);
    const audioCodec = source.probe.metadata.audio_codec;
    await onSources(ctx, [source], () =>
      overlayImageOnVideo(
        { ffmpeg: ctx.tools.ffmpeg, signal: ctx.signal },
        {
          url: source.url,
          videoStream: stream,
          audioCodec: typeof audioCodec === 'string' ? audioCodec : undefined,
          imagePath,
          left: placed.left,
          top: placed.top,
          output,
        },
      ),
    );
    return {
      path: output,
      contentType: 'video/mp4',
      mediaType: 'video',
      extension: 'mp4',
      metadata: {
        width: width - (width % 2),
        height: height - (height % 2),
        codec: 'h264',
        ...(source.probe.duration !== undefined ? { duration: source.probe.duration } : {}),
      },
    };
  });
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
      return { output: { type: 'videos', value: await onVideos(ctx, sourceIds(ctx, BASE, [base]), logo) } };
    }
    return { output: { type: 'images', value: await onImages(ctx, logo) } };
  },
});
