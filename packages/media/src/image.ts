import { encode } from 'blurhash';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { decodeHevcHeif } from './heic';

/** Metadata values as the API's `asset_metadata` allows them. */
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

/** An image's pixels as a sharp pipeline (upright), and what its header says. */
export interface OpenedImage {
  pipeline(): Sharp;
  width: number | undefined;
  height: number | undefined;
  meta: Metadata;
}

/**
 * An image whose header declares more pixels (width × height of its first
 * frame) than the limit allows; no pixel of it was decoded.
 */
export class PixelLimitError extends UnprocessableMediaError {
  constructor(
    readonly width: number,
    readonly height: number,
    readonly maxPixels: number,
  ) {
    super(`The image is ${width}×${height} (${width * height} pixels), over the pixel limit of ${maxPixels} pixels`);
    this.name = 'PixelLimitError';
  }
}

/**
 * What `input`'s header says, read without decoding a pixel; a PixelLimitError
 * when its frame is over the limit. Every decode of an untrusted image starts
 * here, and then decodes under `limitInputPixels` too.
 */
export async function readImageHeader(input: Buffer, limits: ImageLimits): Promise<Metadata> {
  // Read without libvips' own limit, so that the refusal can say how large the image is.
  const meta = await sharp(input, { limitInputPixels: false, failOn: 'error' }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width * height > limits.maxPixels) throw new PixelLimitError(width, height, limits.maxPixels);
  return meta;
}

/**
 * Opens `input` for sharp under the pixel limit: with libvips' own decoders,
 * or, for an HEVC-coded HEIF that prebuilt libvips cannot decode, with the
 * WebAssembly one (heic.ts), whose pixels come upright already.
 */
export async function openImage(input: Buffer, limits: ImageLimits): Promise<OpenedImage> {
  const meta = await readImageHeader(input, limits);
  if (meta.format === 'heif' && meta.compression === 'hevc') {
    const raw = await decodeHevcHeif(input);
    const rawOptions = { raw: { width: raw.width, height: raw.height, channels: 4 as const } };
    return {
      pipeline: () => sharp(raw.data, { ...rawOptions, limitInputPixels: limits.maxPixels }),
      width: raw.width,
      height: raw.height,
      meta,
    };
  }
  // EXIF orientations 5–8 swap the sides.
  const swapped = (meta.orientation ?? 1) >= 5;
  return {
    pipeline: () => decode(input, limits).rotate(),
    width: swapped ? meta.height : meta.width,
    height: swapped ? meta.width : meta.height,
    meta,
  };
}

/**
 * Width, height and format; a WebP preview; a BlurHash (4×3 components on a
 * 32-pixel rendering, the encoder's recommended input size).
 */
export function analyseImage(input: Buffer, limits: ImageLimits): Promise<ImagePreview> {
  return asUnprocessable(async () => {
    const { pipeline, width, height, meta } = await openImage(input, limits);
    const oriented = pipeline();
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
