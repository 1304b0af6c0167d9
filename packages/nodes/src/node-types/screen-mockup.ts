import sharp from 'sharp';
import { z } from 'zod';
import { normalHex } from '../brand';
import { defineNode } from '../definition';
import { deviceFrame, frameSvg, type Device } from '../device-frames';
import { imageFile, keptFormat, mapImages, orUnreadable, type PortImage } from '../image-io';
import { hexColor } from '../media-params';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext } from '../types';

const PORT = 'image';

/** Background around the device, as a share of its longer side. */
const PADDING = 0.08;

/** The longest side of a mockup: a large screenshot is drawn smaller rather than in a huge frame. */
const MAX_SIDE = 8192;

async function mockup(
  ctx: NodeContext<{ device: Device; background: string }>,
  { id, image, width: shotWidth, height: shotHeight }: PortImage,
) {
  const frame = deviceFrame(ctx.params.device);
  const pad = Math.round(Math.max(frame.width, frame.height) * PADDING);
  const fullWidth = frame.width + 2 * pad;
  const fullHeight = frame.height + 2 * pad;
  // The screenshot keeps its own resolution, filling the screen (what overflows it is cut,
  // from the bottom or the sides: a long page shows its top), unless that makes the mockup too large.
  const limit = Math.min(
    MAX_SIDE / Math.max(fullWidth, fullHeight),
    Math.sqrt(ctx.imageLimits.maxPixels / (fullWidth * fullHeight)),
  );
  const scale = Math.min(shotWidth / frame.screen.width, shotHeight / frame.screen.height, limit);
  const px = (v: number) => Math.round(v * scale);
  const [frameWidth, frameHeight, padPx] = [px(frame.width), px(frame.height), px(pad)];
  const screen = {
    width: Math.max(1, px(frame.screen.width)),
    height: Math.max(1, px(frame.screen.height)),
    left: padPx + px(frame.screen.x),
    top: padPx + px(frame.screen.y),
  };
  const radius = frame.screen.radius * scale;
  const corners = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${screen.width}" height="${screen.height}">` +
      `<rect width="${screen.width}" height="${screen.height}" rx="${radius}" fill="#fff"/></svg>`,
  );
  const shot = await orUnreadable(ctx, PORT, id, () =>
    image
      .pipeline()
      .resize({ width: screen.width, height: screen.height, fit: 'cover', position: 'top', kernel: 'lanczos3' })
      .ensureAlpha()
      .composite([{ input: corners, blend: 'dest-in' }])
      .png()
      .toBuffer(),
  );
  const format = keptFormat(image.meta);
  const width = frameWidth + 2 * padPx;
  const height = frameHeight + 2 * padPx;
  const bytes = await sharp({
    create: { width, height, channels: 4, background: normalHex(ctx.params.background) },
  })
    .composite([
      { input: frameSvg(frame, frame.body, frameWidth, frameHeight), left: padPx, top: padPx },
      { input: shot, left: screen.left, top: screen.top },
      ...(frame.over ? [{ input: frameSvg(frame, frame.over, frameWidth, frameHeight), left: padPx, top: padPx }] : []),
    ])
    .toFormat(format)
    .toBuffer();
  return imageFile(bytes, format, {
    width,
    height,
    device: ctx.params.device,
    screen_x: screen.left,
    screen_y: screen.top,
    screen_width: screen.width,
    screen_height: screen.height,
  });
}

/** Places a screenshot into a device frame shipped with Weft. */
export const screenMockup = defineNode({
  type: 'screen_mockup',
  description: 'Places each screenshot at `image` into the device frame params.device, on params.background.',
  serving: 'built_in',
  inputs: { image: imagePort('The screenshots') },
  params: z.object({
    device: z.enum(['phone', 'tablet', 'laptop', 'browser']).default('phone'),
    background: hexColor.default('#f3f4f6'),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const produced = await mapImages(ctx, PORT, (shot) => mockup(ctx, shot));
    return { output: { type: 'images', value: produced } };
  },
});
