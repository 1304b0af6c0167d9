import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  INLINE_EXTENSIONS,
  resolveMedia,
  SNIFF_BYTES,
  sniffContent,
  type ContentSniff,
  type DetectedMedia,
} from '@weft/media';
import { assetKeys, deleteObject, uploadStream, type Storage } from '@weft/storage';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';

// A multer storage engine that streams the file part into S3 as it arrives:
// the first SNIFF_BYTES are held back to identify the content, then they and
// the rest of the part flow through lib-storage's multipart upload, so memory
// stays bounded whatever the file's size and nothing is written to local disk.

export interface StoredFile {
  assetId: string;
  key: string;
  size: number;
  sniff: ContentSniff;
  /** The media as the part's own file name allows; re-checked against the display name later. */
  media: DetectedMedia;
}

/** The content is not a supported type: nothing was stored. */
export class UnsupportedContentError extends Error {}

/** More bytes than the configured maximum: the upload was aborted. */
export class UploadTooLargeError extends Error {}

/** The engine's own failure (storage, a bug), as opposed to a malformed multipart body. */
export class StoreFailedError extends Error {}

export interface EngineOptions {
  storage: Storage;
  organizationId: string;
  maxBytes: number;
}

type MulterFile = Express.Multer.File & { stream: Readable };

/** Reads from `source` until `wanted` bytes (or the end) have arrived. */
async function readHead(source: AsyncIterator<Buffer>, wanted: number) {
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < wanted) {
    const next = await source.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  return { chunks, head: Buffer.concat(chunks).subarray(0, wanted), ended, length };
}

async function storeFile(options: EngineOptions, file: MulterFile): Promise<StoredFile> {
  const source = file.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const { chunks, head, ended, length } = await readHead(source, SNIFF_BYTES);
  // `ended` with everything read: the sample is the whole file.
  const sniff = await sniffContent(head, ended && length <= SNIFF_BYTES);
  if (!sniff) {
    file.stream.resume();
    throw new UnsupportedContentError(length === 0 ? 'The file is empty' : 'Unsupported or unreadable file type');
  }
  let media: DetectedMedia;
  try {
    media = resolveMedia(sniff, file.originalname);
  } catch (err) {
    file.stream.resume();
    throw new UnsupportedContentError((err as Error).message);
  }

  const assetId = randomUUID();
  const key = assetKeys.original(options.organizationId, assetId);
  let size = 0;
  const count = (chunk: Buffer) => {
    size += chunk.length;
    // busboy stops one byte past the limit; this check does not depend on it.
    if (size > options.maxBytes) throw new UploadTooLargeError(`The file is larger than ${options.maxBytes} bytes`);
    return chunk;
  };
  async function* body() {
    for (const chunk of chunks) yield count(chunk);
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      yield count(next.value);
    }
  }
  const aborter = new AbortController();
  let tooLarge = false;
  file.stream.once('limit', () => {
    tooLarge = true;
    aborter.abort();
  });
  try {
    await uploadStream(options.storage, {
      key,
      body: body(),
      ...storedHeaders(media),
      maxBytes: options.maxBytes,
      signal: aborter.signal,
    });
  } catch (err) {
    if (tooLarge || size > options.maxBytes)
      throw new UploadTooLargeError(`The file is larger than ${options.maxBytes} bytes`);
    throw new StoreFailedError('Storing the file failed', { cause: err });
  }
  return { assetId, key, size, sniff, media };
}

/**
 * The headers the object keeps in the store. A type a browser could run (SVG,
 * text, documents) is kept as an inert download, so that a plain request for
 * it (a CDN in front of the bucket) never renders it; the asset's row keeps
 * its real type, which downloads through the API send.
 */
function storedHeaders(media: DetectedMedia): { contentType: string; contentDisposition?: string } {
  if (INLINE_EXTENSIONS.has(media.extension)) return { contentType: media.contentType };
  return { contentType: 'application/octet-stream', contentDisposition: 'attachment' };
}

export function s3StorageEngine(options: EngineOptions): StorageEngine {
  return {
    _handleFile(_req: Request, file: Express.Multer.File, callback) {
      storeFile(options, file as MulterFile).then(
        (stored) => callback(null, stored as unknown as Partial<Express.Multer.File>),
        (err: unknown) => callback(err),
      );
    },
    // Called by multer when the request fails after this file was stored.
    _removeFile(_req: Request, file: Express.Multer.File, callback) {
      const key = (file as unknown as Partial<StoredFile>).key;
      if (!key) return callback(null);
      deleteObject(options.storage, key).then(
        () => callback(null),
        (err: Error) => callback(err),
      );
    },
  };
}
