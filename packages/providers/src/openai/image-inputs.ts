import { openImage, UnprocessableMediaError, type OpenedImage } from '@weft/media';
import { asText, assetIds, NodeFailure, single, type NodeContext } from '@weft/nodes';
import { toFile, type Uploadable } from 'openai';

// The inputs of the images and videos requests: the prompt, and images read
// from storage (under ASSET_MAX_IMAGE_PIXELS) as the files the API uploads.

/** What the images API reads as it is; any other image is sent as PNG. */
const SENT_AS_IS: Record<string, string> = { jpeg: 'jpeg', jpg: 'jpeg', png: 'png', webp: 'webp' };

/** The text at `port`, trimmed; an invalid_input failure when it is empty. */
export function promptText(ctx: NodeContext, port = 'prompt'): string {
  const text = asText(single(ctx, port)).trim();
  if (text === '')
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the prompt at input '${port}' is empty`);
  return text;
}

/** The text at `port` when it is linked and says something. */
export function optionalText(ctx: NodeContext, port: string): string | undefined {
  if (ctx.inputs[port] === undefined) return undefined;
  const text = asText(single(ctx, port)).trim();
  return text === '' ? undefined : text;
}

export interface InputImage {
  /** Decodes it (oriented upright) for what the request needs redrawn. */
  opened: OpenedImage;
  /** Its stored bytes. */
  bytes: Buffer;
  format: string;
  width: number;
  height: number;
}

/** The one image at `port`, opened: an invalid_input failure naming the port when it is not a readable image. */
export async function inputImage(ctx: NodeContext, port: string): Promise<InputImage> {
  const ids = assetIds(ctx, single(ctx, port));
  if (ids.length !== 1) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}' takes one image at input '${port}', not ${ids.length}`,
    );
  }
  const asset = await ctx.assets.read(ids[0]!, ctx.signal);
  try {
    const opened = await openImage(asset.bytes, ctx.imageLimits);
    if (!opened.width || !opened.height) throw new UnprocessableMediaError('it has no size');
    return { opened, bytes: asset.bytes, format: opened.meta.format ?? '', width: opened.width, height: opened.height };
  } catch (err) {
    const why = err instanceof UnprocessableMediaError ? err.message : 'it is not an image';
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the image at input '${port}' cannot be used: ${why}`);
  }
}

/** The image as the file uploaded: its own bytes when the API reads its format, else PNG. */
export async function imageUpload(image: InputImage, name: string): Promise<Uploadable> {
  const format = SENT_AS_IS[image.format];
  // EXIF orientation is left to the API for the formats sent as they are (it reads it as browsers do).
  if (format) return toFile(image.bytes, `${name}.${format === 'jpeg' ? 'jpg' : format}`, { type: `image/${format}` });
  return pngUpload(await image.opened.pipeline().png().toBuffer(), name);
}

export function pngUpload(bytes: Buffer, name: string): Promise<Uploadable> {
  return toFile(bytes, `${name}.png`, { type: 'image/png' });
}

/**
 * The image and mask of an OpenAI edit from our mask (white where to erase):
 * OpenAI edits where the mask is transparent, and wants the mask and the image
 * as PNGs of one size. The mask is the image itself with an alpha channel of
 * ours inverted, so that its pixels are those of the image it goes with.
 */
export async function erasePair(ctx: NodeContext, image: InputImage, mask: InputImage) {
  const { width, height } = image;
  const alpha = await mask.opened
    .pipeline()
    .resize(width, height, { fit: 'fill' })
    // A transparent part of our mask is not to be erased: black, like the rest of what stays.
    .flatten({ background: '#000000' })
    .greyscale()
    .negate({ alpha: false })
    .toColourspace('b-w')
    .raw()
    .toBuffer();
  const picture = await image.opened.pipeline().removeAlpha().png().toBuffer();
  // Joined to the opaque PNG, not in its pipeline: sharp removes an alpha channel after joining channels.
  const masked = await (
    await openImage(picture, ctx.imageLimits)
  )
    .pipeline()
    .joinChannel(alpha, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
  return { image: await pngUpload(picture, 'image'), mask: await pngUpload(masked, 'mask') };
}
