import { encode } from 'blurhash';
import sharp from 'sharp';

/** Metadata values as interface.md 2.12 allows them. */
export type MetadataValue = string | number | boolean | null;
export type AssetMetadata = Record<string, MetadataValue>;

export interface ImageLimits {
  /**
   * Largest width × height decoded. A few KiB of PNG can declare billions of
   * pixels (a decompression bomb); libvips refuses them before allocating.
   */
  maxPixels: number;
}

/** Longest side of thumbnails and previews. */
export const PREVIEW_SIZE = 512;

export interface ImagePreview {
  /** WebP, at most PREVIEW_SIZE on its longest side. */
  preview: Buffer;
  metadata: AssetMetadata;
  blurHash: string;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** `16:9`, or undefined when a side is unknown. */
export function aspectRatio(width: number | undefined, height: number | undefined): string | undefined {
  if (!width || !height) return undefined;
  const d = gcd(width, height);
  return `${width / d}:${height / d}`;
}

/** Thrown for content that no retry can help with: unreadable, unsupported, over the pixel limit. */
export class UnprocessableMediaError extends Error {}

function decode(input: Buffer, limits: ImageLimits) {
  // failOn 'error': a truncated or corrupt file fails rather than rendering garbage.
  return sharp(input, { limitInputPixels: limits.maxPixels, failOn: 'error' });
}

/**
 * Everything libvips throws here is about the input (corrupt, unsupported,
 * over the pixel limit) and would fail the same way again, so it becomes an
 * UnprocessableMediaError, which the processor records without retrying.
 */
async function asUnprocessable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new UnprocessableMediaError(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Width, height and format; a WebP preview; a BlurHash (4×3 components on a
 * 32-pixel rendering, the encoder's recommended input size).
 */
export function analyseImage(input: Buffer, limits: ImageLimits): Promise<ImagePreview> {
  return asUnprocessable(async () => {
    const meta = await decode(input, limits).metadata();
    // EXIF orientations 5–8 swap the sides.
    const swapped = (meta.orientation ?? 1) >= 5;
    const width = swapped ? meta.height : meta.width;
    const height = swapped ? meta.width : meta.height;
    const oriented = decode(input, limits).rotate();
    const preview = await oriented
      .clone()
      .resize({ width: PREVIEW_SIZE, height: PREVIEW_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    const small = await oriented
      .clone()
      .resize({ width: 32, height: 32, fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const blurHash = encode(new Uint8ClampedArray(small.data), small.info.width, small.info.height, 4, 3);
    const metadata: AssetMetadata = {
      width: width ?? null,
      height: height ?? null,
      format: meta.format ?? null,
      has_alpha: meta.hasAlpha ?? false,
    };
    const ratio = aspectRatio(width, height);
    if (ratio) metadata.aspect_ratio = ratio;
    if (meta.pages && meta.pages > 1) metadata.frames = meta.pages;
    return { preview, metadata, blurHash };
  });
}

/** A preview of an already decoded frame (a video still), without a blur hash. */
export function previewOf(input: Buffer, limits: ImageLimits): Promise<Buffer> {
  return asUnprocessable(() =>
    decode(input, limits)
      .resize({ width: PREVIEW_SIZE, height: PREVIEW_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer(),
  );
}
