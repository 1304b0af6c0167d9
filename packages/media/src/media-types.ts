import type { MEDIA_EXTENSIONS, MEDIA_TYPES } from '@weft/contracts';

export type MediaType = (typeof MEDIA_TYPES)[number];
export type MediaExtension = (typeof MEDIA_EXTENSIONS)[number];

/** What an asset is, decided from its bytes (never from its name or the client's Content-Type). */
export interface DetectedMedia {
  mediaType: MediaType;
  extension: MediaExtension;
  /** Served as Content-Type; text types carry their charset. */
  contentType: string;
}

/** The Content-Type each supported extension is stored and served with. */
export const CONTENT_TYPES: Record<MediaExtension, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
  heic: 'image/heic',
  heif: 'image/heif',
  avif: 'image/avif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  csv: 'text/csv; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json',
  md: 'text/markdown; charset=utf-8',
  ttf: 'font/ttf',
  otf: 'font/otf',
  woff: 'font/woff',
  woff2: 'font/woff2',
};

const MEDIA_TYPE_OF: Record<MediaExtension, MediaType> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  svg: 'image',
  heic: 'image',
  heif: 'image',
  avif: 'image',
  webp: 'image',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  wav: 'audio',
  mp3: 'audio',
  pdf: 'file',
  docx: 'file',
  csv: 'file',
  txt: 'file',
  json: 'file',
  md: 'file',
  ttf: 'file',
  otf: 'file',
  woff: 'file',
  woff2: 'file',
};

export function mediaOf(extension: MediaExtension): DetectedMedia {
  return { mediaType: MEDIA_TYPE_OF[extension], extension, contentType: CONTENT_TYPES[extension] };
}

export function isMediaExtension(value: string): value is MediaExtension {
  return Object.prototype.hasOwnProperty.call(MEDIA_TYPE_OF, value);
}

/** Raster formats that sharp decodes: thumbnails, blur hashes and SVG tracing apply to these. */
export const RASTER_EXTENSIONS: ReadonlySet<MediaExtension> = new Set([
  'png',
  'jpg',
  'jpeg',
  'webp',
  'avif',
  'heic',
  'heif',
]);

/**
 * Types a browser only displays (raster images, audio, video), whose URLs may
 * serve them inline. Anything else could run script in the origin that serves
 * it (SVG, and any text a browser may take for a page) or is no use inline
 * (documents, fonts): its URLs make the browser download it instead.
 */
export const INLINE_EXTENSIONS: ReadonlySet<MediaExtension> = new Set([
  ...RASTER_EXTENSIONS,
  'mp4',
  'mov',
  'webm',
  'wav',
  'mp3',
]);
