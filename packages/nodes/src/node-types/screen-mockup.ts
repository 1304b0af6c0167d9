import sharp from 'sharp';
import { z } from 'zod';
import { normalHex } from '../brand';
import { defineNode } from '../definition';
import { deviceFrame, frameSvg, type Device } from '../device-frames';
import { imageFile, keptFormat, mapImages, orUnreadable, type PortImage } from '../image-io';
import { hexColor } from '../media-params';
import { imagePort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { mockupLayout } from '../mockup-layout';
import { NodeFailure, type NodeContext } from '../types';

const PORT = 'image';

/** The longest side WebP can encode; JPEG and PNG allow more. */
const MAX_SIDE = 16_383;

async function mockup(ctx: NodeContext<{ device: Device; background: string }>, shot: PortImage) {
  const frame = deviceFrame(ctx.params.device, shot);
  const layout = mockupLayout(frame, shot);
  const { width, height, screen } = layout;
  if (width * height > ctx.imageLimits.maxPixels || Math.max(width, height) > MAX_SIDE) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': the screenshot at input '${PORT}' (asset ${shot.id}) is ${shot.width}×${shot.height}; ` +
        `a ${ctx.params.device} around it at that resolution would be ${width}×${height}, over the limit of ` +
        `${ctx.imageLimits.maxPixels} pixels and ${MAX_SIDE} on a side`,
    );
  }
  const screenSvg = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${screen.width}" height="${screen.height}">` +
      `<rect width="${screen.width}" height="${screen.height}" rx="${screen.radius}" fill="${frame.screenColor}"/></svg>`,
  );
  const pixels = await orUnreadable(ctx, PORT, shot.id, () =>
    shot.image.pipeline().png({ compressionLevel: 0 }).toBuffer(),
  );
  const format = keptFormat(shot.image.meta);
  const bytes = await sharp({
    create: { width, height, channels: 4, background: normalHex(ctx.params.background) },
  })
    .composite([
      {
        input: frameSvg(frame, frame.body, layout.frame.width, layout.frame.height),
        left: layout.frame.left,
        top: layout.frame.top,
      },
      { input: screenSvg, left: screen.left, top: screen.top },
      { input: pixels, left: layout.shot.left, top: layout.shot.top },
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
    screenshot_x: layout.shot.left,
    screenshot_y: layout.shot.top,
  });
}

/** Places a screenshot into a device frame shipped with Weft. */
export const screenMockup = defineNode({
  type: 'screen_mockup',
  description:
    'Places each screenshot at `image`, at its own resolution, into the device frame params.device ' +
    '(drawn to its size), on params.background.',
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
