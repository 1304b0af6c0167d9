import { z } from 'zod';
import { defineNode } from '../definition';
import { imageFile, imageIds, keptFormat, openPortImage, orUnreadable } from '../image-io';
import { imagePort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure, type NodeContext, type ProducedFile } from '../types';

const RATIO = /^(\d{1,4}):(\d{1,4})$/;

/** The largest centred box of `ratio` inside width × height. */
export function centredCrop(width: number, height: number, rw: number, rh: number) {
  const byWidth = Math.round((width * rh) / rw);
  if (byWidth <= height) return { left: 0, top: Math.floor((height - byWidth) / 2), width, height: byWidth };
  const byHeight = Math.round((height * rw) / rh);
  return { left: Math.floor((width - byHeight) / 2), top: 0, width: byHeight, height };
}

const Ratio = z
  .string()
  .regex(RATIO, { error: 'aspect_ratio is width:height in whole numbers, like 16:9' })
  .refine((text) => !/(^|:)0+(:|$)/.test(text), { error: 'neither side of aspect_ratio may be 0' });

function parseRatio(text: string): [number, number] {
  const match = RATIO.exec(text)!;
  return [Number(match[1]), Number(match[2])];
}

const PORT = 'image';

async function crop(ctx: NodeContext, assetId: string, bytes: Buffer, rw: number, rh: number): Promise<ProducedFile> {
  // The header was checked against the pixel limit before any pixel is decoded, and sharp decodes
  // under that limit too. It works on libvips' own threads, off the event loop, so a large image
  // never delays BullMQ's lock renewal on this process.
  const image = await openPortImage(ctx, PORT, assetId, bytes);
  const box = centredCrop(image.width ?? 0, image.height ?? 0, rw, rh);
  const format = keptFormat(image.meta);
  const out = await orUnreadable(ctx, PORT, assetId, () => image.pipeline().extract(box).toFormat(format).toBuffer());
  return imageFile(out, format, { width: box.width, height: box.height, aspect_ratio: `${rw}:${rh}` });
}

/** Crops each image at `inputs.image` to `params.aspect_ratio`, centred → new image assets. */
export const changeAspectRatio = defineNode({
  type: 'change_aspect_ratio',
  description: 'Crops each image at `image` to params.aspect_ratio, centred.',
  serving: 'built_in',
  inputs: { image: imagePort('The images to crop') },
  params: z.object({ aspect_ratio: Ratio.default('1:1').describe('width:height, e.g. 1:1, 4:5, 16:9, 9:16') }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const [rw, rh] = parseRatio(ctx.params.aspect_ratio);
    const produced = await storeEach(ctx, imageIds(ctx, PORT), async (id) => {
      const asset = await ctx.assets.read(id, ctx.signal);
      if (asset.mediaType !== 'image') {
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': asset ${id} is not an image`);
      }
      return crop(ctx, id, asset.bytes, rw, rh);
    });
    return { output: { type: 'images', value: produced } };
  },
});
