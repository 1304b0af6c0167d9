import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as fontkit from 'fontkit';
import { renameFontFamily } from './font-rename';
import { toSfnt } from './font-sfnt';
import { UnprocessableMediaError } from './image';

/** The extensions upload detection gives font files (media_type `file`). */
export const FONT_EXTENSIONS: ReadonlySet<string> = new Set(['ttf', 'otf', 'woff', 'woff2']);

/** A font file ready for Pango: its path and the family name to ask for (not the font's own: see font-rename.ts). */
export interface InstalledFont {
  path: string;
  family: string;
}

/** The family name a font file declares; UnprocessableMediaError when the bytes are not one font. */
export function fontFamily(bytes: Buffer): string {
  let font: ReturnType<typeof fontkit.create>;
  try {
    font = fontkit.create(bytes);
  } catch (err) {
    throw new UnprocessableMediaError(`not a font: ${err instanceof Error ? err.message : String(err)}`);
  }
  // A collection (.ttc) holds several families: which one a layer means is not known.
  const family = 'familyName' in font ? font.familyName : undefined;
  if (typeof family !== 'string' || family.trim() === '') {
    throw new UnprocessableMediaError('not a font: no single family name');
  }
  return family;
}

// fontconfig keeps every font file it was given for the life of the process and
// reads it again later by path: a file removed afterwards (a node's work dir)
// breaks later renderings of that family. So fonts live in one directory of the
// process, named by their content: the same font is written once, at one path.
const FONT_DIR = path.join(os.tmpdir(), `weft-fonts-${process.pid}`);

/**
 * Writes the font where Pango can load it (sharp's `text.fontfile`): a web
 * font unpacked to TrueType/OpenType, renamed to a family of its own content.
 * UnprocessableMediaError when it is not a font.
 */
export async function installFont(bytes: Buffer): Promise<InstalledFont> {
  const sfnt = await toSfnt(bytes);
  fontFamily(sfnt.bytes);
  const hash = createHash('sha256').update(sfnt.bytes).digest('hex').slice(0, 24);
  const family = `Weft Font ${hash}`;
  const file = path.join(FONT_DIR, `${hash}.${sfnt.extension}`);
  if (!fs.existsSync(file)) {
    let renamed: Buffer;
    try {
      renamed = renameFontFamily(sfnt.bytes, family);
    } catch (err) {
      throw new UnprocessableMediaError(`not a font: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (fontFamily(renamed) !== family) throw new UnprocessableMediaError('not a font: its names cannot be rewritten');
    await fs.promises.mkdir(FONT_DIR, { recursive: true });
    // Written aside then renamed: a concurrent render never sees half a font.
    const partial = `${file}.${process.hrtime.bigint()}.part`;
    await fs.promises.writeFile(partial, renamed);
    await fs.promises.rename(partial, file);
  }
  return { path: file, family };
}
