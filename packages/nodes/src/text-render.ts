import { installFont, UnprocessableMediaError } from '@weft/media';
import sharp from 'sharp';
import { NodeFailure, UnreadableAsset, type NodeContext } from './types';

// Text drawn by Pango (sharp's text input), in the default font or in a font
// file given as an asset, which Pango loads from its file (not by a family
// name that fontconfig could resolve to another installed font).

/** What text layers are drawn in unless they name a font. */
export const DEFAULT_FONT_FAMILY = 'DejaVu Sans';

/** Larger than any font file; a bigger "font" is not read into memory. */
const MAX_FONT_BYTES = 32 * 1024 * 1024;

export interface TextStyle {
  /** Pixels (Pango's points at 72 dpi). */
  fontSize: number;
  /** `#rrggbb`. */
  color: string;
  /** Wrap width in pixels. */
  width?: number | undefined;
  font?: { path: string; family: string } | undefined;
}

/** Escapes text for Pango markup. */
function markupText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** RGBA pixels of the text; undefined when it draws nothing (empty or blank). */
export async function renderText(
  text: string,
  style: TextStyle,
): Promise<{ data: Buffer; width: number; height: number } | undefined> {
  if (text.trim() === '') return undefined;
  const family = style.font?.family ?? DEFAULT_FONT_FAMILY;
  const { data, info } = await sharp({
    text: {
      text: `<span foreground="${style.color}">${markupText(text)}</span>`,
      // The comma ends the family list, so that a family named like a style ("… Bold") stays whole.
      font: `${family}, ${style.fontSize}`,
      ...(style.font ? { fontfile: style.font.path } : {}),
      ...(style.width ? { width: style.width } : {}),
      rgba: true,
      dpi: 72,
      wrap: 'word-char',
    },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The font asset `assetId` ready for renderText; a NodeFailure naming `where` when it is missing or not a font. */
export async function fontAsset(ctx: NodeContext, where: string, assetId: string) {
  const fail = (why: string) =>
    new NodeFailure('invalid_input', `Node '${ctx.nodeId}': ${where}: the font asset ${assetId} ${why}`);
  let info;
  try {
    info = await ctx.assets.info(assetId, ctx.signal);
  } catch (err) {
    if (err instanceof UnreadableAsset) throw fail('does not exist or is not readable');
    throw err;
  }
  if (info.sizeBytes > MAX_FONT_BYTES) throw fail('is not a font');
  const asset = await ctx.assets.read(assetId, ctx.signal);
  try {
    return await installFont(asset.bytes);
  } catch (err) {
    if (err instanceof UnprocessableMediaError) throw fail('is not a font');
    throw err;
  }
}
