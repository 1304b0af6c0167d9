import sharp from 'sharp';
import { openImage, UnprocessableMediaError, type ImageLimits } from './image';
import { tracePool } from './trace-pool';

/** Longest side traced, as for black and white (vectorize.ts): potrace's time grows with the pixel count. */
const TRACE_SIZE = 1024;

export interface ColorTrace {
  svg: string;
  /** The fills used, `#rrggbb`, the background's first. */
  fills: string[];
}

const hex = (r: number, g: number, b: number) => `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;

/**
 * Traces an image into an SVG of at most `colors` flat colours: libimagequant
 * (sharp's PNG palette) picks the colours, then each colour's area is traced
 * by potrace on the trace pool as a shape of that colour (colour separation),
 * stacked over the most common colour as the background. potrace's own
 * posterize draws one colour at several opacities, not several colours.
 */
export async function traceColorsToSvg(
  input: Buffer,
  colors: number,
  limits: ImageLimits,
  signal: AbortSignal,
): Promise<ColorTrace> {
  const { data, width, height, sourceWidth, sourceHeight } = await quantize(input, colors, limits);
  const pixels = width * height;
  const counts = new Map<number, number>();
  const index = new Uint32Array(pixels);
  for (let p = 0; p < pixels; p++) {
    const key = (data[p * 3]! << 16) | (data[p * 3 + 1]! << 8) | data[p * 3 + 2]!;
    index[p] = key;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const order = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([key]) => key);
  const fill = (key: number) => hex(key >> 16, (key >> 8) & 255, key & 255);
  const [background, ...shapes] = order;
  const paths: string[] = [];
  const fills = [fill(background!)];
  for (const key of shapes) {
    signal.throwIfAborted();
    const prepare = async () => {
      // Black where the colour is, white elsewhere: what potrace traces.
      const mask = Buffer.alloc(pixels, 255);
      for (let p = 0; p < pixels; p++) if (index[p] === key) mask[p] = 0;
      return sharp(mask, { raw: { width, height, channels: 1 } })
        .png()
        .toBuffer();
    };
    const svg = await tracePool.run(
      prepare,
      { turdSize: 2, optTolerance: 0.4, threshold: 128, color: fill(key) },
      signal,
    );
    const path = /<path d="([^"]*)"[^>]*\/>/.exec(svg);
    // Specks smaller than turdSize leave nothing to draw.
    if (path && path[1]!.trim() !== '') {
      paths.push(path[0]);
      fills.push(fill(key));
    }
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${sourceWidth}" height="${sourceHeight}" ` +
    `viewBox="0 0 ${width} ${height}" version="1.1">\n` +
    `\t<rect x="0" y="0" width="${width}" height="${height}" fill="${fills[0]}"/>\n` +
    paths.map((p) => `\t${p}\n`).join('') +
    '</svg>\n';
  return { svg, fills };
}

/** The image upright, at most TRACE_SIZE on its longest side, on white, reduced to `colors` colours: RGB pixels. */
async function quantize(input: Buffer, colors: number, limits: ImageLimits) {
  try {
    const image = await openImage(input, limits);
    const png = await image
      .pipeline()
      .resize({ width: TRACE_SIZE, height: TRACE_SIZE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .png({ palette: true, colours: Math.max(2, colors), dither: 0 })
      .toBuffer();
    const { data, info } = await sharp(png)
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return {
      data,
      width: info.width,
      height: info.height,
      sourceWidth: image.width ?? info.width,
      sourceHeight: image.height ?? info.height,
    };
  } catch (err) {
    throw new UnprocessableMediaError(err instanceof Error ? err.message : String(err));
  }
}
