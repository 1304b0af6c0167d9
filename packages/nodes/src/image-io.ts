import { openImage, PixelLimitError, type OpenedImage } from '@weft/media';
import type { Metadata } from 'sharp';
import { readAt } from './port-assets';
import { storeEach } from './store-each';
import { NodeFailure, type NodeContext, type ProducedFile } from './types';
import { assetIds, single } from './values';

// Reading the images at a node's port and writing its results, as every image
// node does: under the pixel limit, failures naming the node, port and asset.

export type KeptFormat = 'jpeg' | 'png' | 'webp';

const FORMATS: Record<KeptFormat, { contentType: string; extension: string }> = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
};

/** The format a result keeps: JPEG and WebP as they were, anything else (PNG, AVIF, HEIF) PNG. */
export function keptFormat(meta: Metadata): KeptFormat {
  if (meta.format === 'webp') return 'webp';
  if (meta.format === 'jpeg') return 'jpeg';
  return 'png';
}

/** A result image as a file to store, with what is known of it. */
export function imageFile(
  bytes: Buffer,
  format: KeptFormat,
  metadata: Record<string, string | number | boolean | null>,
): ProducedFile {
  return { bytes, ...FORMATS[format], mediaType: 'image', metadata };
}

/** The asset ids of the images at `port` (one value: a list of ids); a NodeFailure when there are none. */
export function imageIds(ctx: NodeContext, port: string): string[] {
  const ids = assetIds(ctx, single(ctx, port));
  if (ids.length === 0)
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' received no image at input '${port}'`);
  return ids;
}

export function unreadableImage(ctx: NodeContext, port: string, assetId: string): NodeFailure {
  return new NodeFailure(
    'invalid_input',
    `Node '${ctx.nodeId}': the image at input '${port}' (asset ${assetId}) cannot be read`,
  );
}

/** Opens image bytes under the pixel limit; a NodeFailure naming the port for anything unreadable or too large. */
export async function openPortImage(
  ctx: NodeContext,
  port: string,
  assetId: string,
  bytes: Buffer,
): Promise<OpenedImage> {
  try {
    return await openImage(bytes, ctx.imageLimits);
  } catch (err) {
    if (err instanceof PixelLimitError) {
      const size = `${err.width}×${err.height} (${err.width * err.height} pixels)`;
      throw new NodeFailure(
        'invalid_input',
        `Node '${ctx.nodeId}': the image at input '${port}' (asset ${assetId}) is ${size}, over the limit of ${err.maxPixels} pixels`,
      );
    }
    throw unreadableImage(ctx, port, assetId);
  }
}

export interface PortImage {
  id: string;
  bytes: Buffer;
  image: OpenedImage;
  width: number;
  height: number;
}

/** Reads and opens the image asset `assetId` given at `port`; a NodeFailure when it is not an image. */
export async function readPortImage(ctx: NodeContext, port: string, assetId: string): Promise<PortImage> {
  const asset = await readAt(ctx, port, assetId);
  if (asset.mediaType !== 'image' || asset.extension === 'svg') {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': asset ${assetId} at input '${port}' is not a raster image (it is ${asset.extension})`,
    );
  }
  const image = await openPortImage(ctx, port, assetId, asset.bytes);
  if (!image.width || !image.height) throw unreadableImage(ctx, port, assetId);
  return { id: assetId, bytes: asset.bytes, image, width: image.width, height: image.height };
}

/** Runs sharp work on an image, a failure of it becoming the port's invalid_input. */
export async function orUnreadable<T>(ctx: NodeContext, port: string, assetId: string, work: () => Promise<T>) {
  try {
    return await work();
  } catch (err) {
    if (err instanceof NodeFailure || ctx.signal.aborted) throw err;
    throw unreadableImage(ctx, port, assetId);
  }
}

/**
 * One result per image at `port`, in order, each stored as it is made so that
 * no more than one image is held at a time.
 */
export async function mapImages(
  ctx: NodeContext,
  port: string,
  make: (image: PortImage, index: number) => Promise<ProducedFile>,
): Promise<string[]> {
  return storeEach(ctx, imageIds(ctx, port), async (id, index) => make(await readPortImage(ctx, port, id), index));
}
