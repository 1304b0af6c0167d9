import sharp from 'sharp';
import { ffmpeg } from './generate';

// The colours of an image, or of a video's frame, a test checks.

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
  at(x: number, y: number): number[];
}

/** An image's decoded pixels (RGBA). */
export async function pixelsOf(bytes: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: 4,
    data,
    at(x, y) {
      const i = (y * info.width + x) * 4;
      return [...data.subarray(i, i + 4)];
    },
  };
}

/** Whether two colours are within `tolerance` on every channel (RGB). */
export function near(actual: number[], expected: number[], tolerance = 8): boolean {
  return expected.slice(0, 3).every((v, i) => Math.abs(actual[i]! - v) <= tolerance);
}

/** The frame shown at `seconds`, through `filters` when given, as raw RGB bytes. */
function rgbFrame(file: string, seconds: number, filters?: string): Buffer {
  return ffmpeg([
    '-ss',
    String(seconds),
    '-i',
    file,
    '-frames:v',
    '1',
    ...(filters ? ['-vf', filters] : []),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ]);
}

/** One frame at `seconds` as RGB bytes (width × height × 3). */
export function frameAt(file: string, seconds: number): Buffer {
  return rgbFrame(file, seconds);
}

/** The mean colour [r, g, b] of a 16×16 box of the frame shown at `seconds`: at its centre, or with its top left corner at `at`. */
export function colourAt(file: string, seconds: number, at?: { x: number; y: number }): [number, number, number] {
  const box = at ? `crop=16:16:${at.x}:${at.y}` : 'crop=16:16:(iw-16)/2:(ih-16)/2';
  const rgb = rgbFrame(file, seconds, `${box},scale=1:1:flags=area`);
  if (rgb.length !== 3) throw new Error(`no frame at ${seconds} s of ${file}`);
  return [rgb[0]!, rgb[1]!, rgb[2]!];
}
