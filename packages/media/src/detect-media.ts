import { fileTypeFromBuffer } from 'file-type/core';
import { isMediaExtension, mediaOf, type DetectedMedia, type MediaExtension } from './media-types';
import { sniffText } from './sniff-text';

/**
 * How many leading bytes detection looks at. Magic numbers sit in the first
 * few KiB; Office documents (ZIP) name their parts a little further in.
 */
export const SNIFF_BYTES = 64 * 1024;

/** What the content is, and which extensions a file name may claim for it. */
export interface ContentSniff {
  media: DetectedMedia;
  accepts: MediaExtension[];
}

// file-type's answers that map onto the API's MediaExtension set; every
// other format it recognises (gif, zip, exe, ...) is unsupported.
const FROM_FILE_TYPE: Record<string, { extension: MediaExtension; accepts: MediaExtension[] }> = {
  png: { extension: 'png', accepts: ['png'] },
  jpg: { extension: 'jpg', accepts: ['jpg', 'jpeg'] },
  webp: { extension: 'webp', accepts: ['webp'] },
  avif: { extension: 'avif', accepts: ['avif'] },
  mp4: { extension: 'mp4', accepts: ['mp4', 'mov'] },
  m4v: { extension: 'mp4', accepts: ['mp4', 'mov'] },
  mov: { extension: 'mov', accepts: ['mov', 'mp4'] },
  webm: { extension: 'webm', accepts: ['webm'] },
  mp3: { extension: 'mp3', accepts: ['mp3'] },
  wav: { extension: 'wav', accepts: ['wav'] },
  pdf: { extension: 'pdf', accepts: ['pdf'] },
  docx: { extension: 'docx', accepts: ['docx'] },
  ttf: { extension: 'ttf', accepts: ['ttf'] },
  otf: { extension: 'otf', accepts: ['otf'] },
  woff: { extension: 'woff', accepts: ['woff'] },
  woff2: { extension: 'woff2', accepts: ['woff2'] },
};

/** HEIF containers: file-type reports them all as `heic` and tells them apart by MIME type. */
function heif(mime: string): { extension: MediaExtension; accepts: MediaExtension[] } {
  return { extension: mime.startsWith('image/heic') ? 'heic' : 'heif', accepts: ['heic', 'heif'] };
}

/**
 * Identifies a file from its first bytes (`sample`, at most SNIFF_BYTES;
 * `complete` when it is the whole file). Undefined: not a supported type.
 */
export async function sniffContent(sample: Uint8Array, complete: boolean): Promise<ContentSniff | undefined> {
  let detected: { ext: string; mime: string } | undefined;
  try {
    detected = await fileTypeFromBuffer(sample);
  } catch {
    // A sample cut inside a structure file-type follows (a ZIP entry, a box): not identifiable.
    detected = undefined;
  }
  // XML is recognised by file-type but may be SVG, which is judged as text.
  if (detected && detected.ext !== 'xml') {
    const known = detected.ext === 'heic' ? heif(detected.mime) : FROM_FILE_TYPE[detected.ext];
    if (!known) return undefined;
    return { media: mediaOf(known.extension), accepts: known.accepts };
  }
  const text = sniffText(sample, complete);
  if (!text) return undefined;
  return { media: mediaOf(text.format), accepts: text.accepts };
}

/** The extension of a file name, lower-cased, without the dot ('' when there is none). */
export function extensionOf(name: string | undefined): string {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(name ?? '');
  return match ? match[1]!.toLowerCase() : '';
}

export class MediaMismatchError extends Error {
  constructor(
    readonly claimed: MediaExtension,
    readonly detected: DetectedMedia,
  ) {
    super(`The file's name says .${claimed} but its content is ${detected.extension}`);
  }
}

/**
 * The media the asset is stored as. A file name that claims a supported
 * extension must agree with the content (docs/assets.md#type-detection: a
 * mismatch is a 400); when it does, its spelling wins (`.jpeg`, `.csv` for plain text).
 * Names with no or an unknown extension leave the content's answer alone.
 */
export function resolveMedia(sniff: ContentSniff, name: string | undefined): DetectedMedia {
  const claimed = extensionOf(name);
  if (!isMediaExtension(claimed)) return sniff.media;
  if (!sniff.accepts.includes(claimed)) throw new MediaMismatchError(claimed, sniff.media);
  return mediaOf(claimed);
}
