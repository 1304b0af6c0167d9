import sharp, { type OverlayOptions } from 'sharp';
import { z } from 'zod';
import { brandOf, normalHex } from '../brand';
import { defineNode } from '../definition';
import { orUnreadable, readPortImage } from '../image-io';
import { hexColor } from '../media-params';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { fontAsset, renderText } from '../text-render';
import { NodeFailure, type NodeContext } from '../types';
import { asText, single } from '../values';

const box = {
  x: z.number().int().min(-100_000).max(100_000).default(0),
  y: z.number().int().min(-100_000).max(100_000).default(0),
};
const picture = {
  port: z.string().min(1).describe('The input port holding the image'),
  ...box,
  width: z.number().int().min(1).max(16_384).optional(),
  height: z.number().int().min(1).max(16_384).optional(),
  fit: z.enum(['cover', 'contain', 'fill']).default('contain'),
};

const layer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('color'), color: hexColor }),
  z.strictObject({ kind: z.literal('image'), ...picture }),
  z.strictObject({ kind: z.literal('logo'), ...picture }),
  z.strictObject({
    kind: z.literal('text'),
    text: z.string().max(10_000).optional().describe('The text, or `port` for the text at an input'),
    port: z.string().min(1).optional(),
    ...box,
    width: z.number().int().min(1).max(16_384).optional().describe('Wrap width in pixels'),
    font_size: z.number().int().min(4).max(1000).default(48),
    color: hexColor.default('#000000'),
    font: z.string().min(1).optional().describe('An asset id of a ttf/otf/woff font (e.g. from a brand)'),
  }),
]);

type Layer = z.output<typeof layer>;
type Picture = Extract<Layer, { kind: 'image' | 'logo' }>;
type TextLayer = Extract<Layer, { kind: 'text' }>;

/** RGBA pixels placed at (x, y) on the canvas, possibly partly or wholly outside it. */
interface Placed {
  data: Buffer;
  width: number;
  height: number;
  x: number;
  y: number;
}

const where = (index: number, kind: string) => `layer ${index} (${kind})`;

function layerFailure(ctx: NodeContext, index: number, kind: string, why: string): NodeFailure {
  return new NodeFailure('invalid_input', `Node '${ctx.nodeId}': ${where(index, kind)}: ${why}`);
}

/** The image asset a picture layer's port holds: the first image of a list, or a brand's logo. */
function pictureId(ctx: NodeContext, index: number, l: Picture): string {
  if (ctx.inputs[l.port] === undefined)
    throw layerFailure(ctx, index, l.kind, `no input is linked at port '${l.port}'`);
  const value = single(ctx, l.port);
  if (value.type === 'images' && Array.isArray(value.value) && typeof value.value[0] === 'string') {
    return value.value[0];
  }
  const logo = brandOf(value)?.logo;
  if (logo) return logo;
  throw layerFailure(ctx, index, l.kind, `the input at port '${l.port}' holds no image`);
}

async function pictureLayer(ctx: NodeContext, index: number, l: Picture): Promise<Placed> {
  const id = pictureId(ctx, index, l);
  const { image } = await readPortImage(ctx, l.port, id);
  return orUnreadable(ctx, l.port, id, async () => {
    const resized =
      l.width || l.height
        ? image.pipeline().resize({
            ...(l.width ? { width: l.width } : {}),
            ...(l.height ? { height: l.height } : {}),
            fit: l.fit,
            background: { r: 0, g: 0, b: 0, alpha: 0 },
          })
        : image.pipeline();
    const { data, info } = await resized.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, x: l.x, y: l.y };
  });
}

async function textLayer(ctx: NodeContext, index: number, l: TextLayer): Promise<Placed | undefined> {
  let content = l.text;
  if (content === undefined && l.port !== undefined) {
    if (ctx.inputs[l.port] === undefined)
      throw layerFailure(ctx, index, 'text', `no input is linked at port '${l.port}'`);
    content = asText(single(ctx, l.port));
  }
  if (content === undefined) throw layerFailure(ctx, index, 'text', 'it has neither `text` nor `port`');
  const font = l.font ? await fontAsset(ctx, where(index, 'text'), l.font) : undefined;
  const drawn = await renderText(content, {
    fontSize: l.font_size,
    color: normalHex(l.color),
    width: l.width,
    font,
  });
  return drawn && { ...drawn, x: l.x, y: l.y };
}

/** The part of `p` inside a canvas of width × height, as a composite overlay; undefined when none is. */
async function clipped(p: Placed, width: number, height: number): Promise<OverlayOptions | undefined> {
  const left = Math.max(0, p.x);
  const top = Math.max(0, p.y);
  const right = Math.min(width, p.x + p.width);
  const bottom = Math.min(height, p.y + p.height);
  if (right <= left || bottom <= top) return undefined;
  const raw = { width: p.width, height: p.height, channels: 4 as const };
  const visible = { left: left - p.x, top: top - p.y, width: right - left, height: bottom - top };
  const whole = visible.width === p.width && visible.height === p.height;
  const data = whole ? p.data : await sharp(p.data, { raw }).extract(visible).raw().toBuffer();
  return { input: data, raw: { width: visible.width, height: visible.height, channels: 4 }, left, top };
}

async function compose(ctx: NodeContext<{ width: number; height: number; layers: Layer[] }>): Promise<Buffer> {
  const { width, height, layers } = ctx.params;
  if (width * height > ctx.imageLimits.maxPixels) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': ${width}×${height} is over the limit of ${ctx.imageLimits.maxPixels} pixels`,
    );
  }
  const raw = { width, height, channels: 4 as const };
  let canvas = await sharp({ create: { ...raw, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .raw()
    .toBuffer();
  // One layer at a time: the canvas and one layer are in memory, never all the layers at once.
  for (const [index, l] of layers.entries()) {
    ctx.signal.throwIfAborted();
    let overlay: OverlayOptions | undefined;
    if (l.kind === 'color') {
      overlay = { input: { create: { ...raw, background: normalHex(l.color) } } };
    } else {
      const placed = l.kind === 'text' ? await textLayer(ctx, index, l) : await pictureLayer(ctx, index, l);
      overlay = placed && (await clipped(placed, width, height));
    }
    if (overlay) canvas = await sharp(canvas, { raw }).composite([overlay]).raw().toBuffer();
  }
  return sharp(canvas, { raw }).png().toBuffer();
}

/** One image of `params.width` × `params.height` from `params.layers`, bottom first. */
export const composer = defineNode({
  type: 'composer',
  description:
    'One image of params.width × params.height drawn from params.layers, bottom first: colour, image, logo ' +
    'and text layers; images come from the input ports the layers name.',
  serving: 'built_in',
  inputs: {},
  otherInputs: {
    accepts: ['images', 'text', 'data'],
    required: false,
    many: false,
    description: 'An image, text or brand a layer names by its port',
  },
  params: z.object({
    width: z.number().int().min(1).max(8192).default(1080),
    height: z.number().int().min(1).max(8192).default(1080),
    layers: z.array(layer).min(1).max(100),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const bytes = await compose(ctx);
    const { width, height } = ctx.params;
    const id = await ctx.assets.store(
      { bytes, contentType: 'image/png', mediaType: 'image', extension: 'png', metadata: { width, height } },
      0,
      ctx.signal,
    );
    return { output: { type: 'images', value: [id] } };
  },
});
