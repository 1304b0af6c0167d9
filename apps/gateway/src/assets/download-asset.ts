import type { Readable } from 'node:stream';
import { attachmentDisposition, displayName, type AssetFile } from '@weft/assets';
import { AppError, BadRequestError, GoneError, NotFoundError, ServiceUnavailableError } from '@weft/errors';
import {
  RASTER_EXTENSIONS,
  traceToSvg,
  TracerBusyError,
  UnprocessableMediaError,
  type MediaExtension,
} from '@weft/media';
import {
  isInvalidRange,
  isMissingObject,
  isStorageUnavailable,
  openObject,
  readObject,
  statObject,
  type Storage,
} from '@weft/storage';
import type { AssetFiles } from './asset-files';
import { parseRange, type ByteRange } from './byte-range';

export interface DownloadRequest {
  organizationId: string;
  assetId: string;
  svg: boolean;
  range?: string;
  ifRange?: string;
  /** A HEAD request: the GET's status and headers, no bytes moved, `downloaded` left alone. */
  head?: boolean;
  /** Aborts when the client hangs up: an SVG conversion nobody waits for stops. */
  signal?: AbortSignal;
}

export interface DownloadLimits {
  /** Largest original the SVG tracer reads into memory. */
  maxTraceBytes: number;
  maxPixels: number;
}

export interface Download {
  status: 200 | 206;
  headers: Record<string, string>;
  /** Absent for a HEAD request. */
  body?: Readable | string;
}

// Whatever the type, a download is an attachment that the browser must not
// sniff or run: an SVG (or an HTML-looking text) opened from our origin could
// otherwise execute script with access to it. The sandbox CSP covers clients
// that render it anyway.
const SAFE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'Cache-Control': 'private, no-store',
};

function storageError(err: unknown): unknown {
  if (isMissingObject(err)) return new GoneError('The file is no longer available');
  if (isStorageUnavailable(err)) return new ServiceUnavailableError('Storage is temporarily unavailable');
  return err;
}

/**
 * GET /assets/{id}/download. Owner, public or shared; 404 otherwise, 410 once
 * deleted or when the object is gone. Streams from S3 with the stored
 * Content-Type and length; one Range is honoured (206), as S3 serves it.
 */
export async function downloadAsset(
  files: AssetFiles,
  storage: Storage,
  limits: DownloadLimits,
  request: DownloadRequest,
  onError: (err: unknown) => void,
): Promise<Download> {
  const file = await files.readable(request.organizationId, request.assetId);
  if (!file) throw new NotFoundError('Asset');
  if (file.deleted) throw new GoneError('Asset deleted');

  const extension = file.mediaExtension as MediaExtension;
  let result: Download;
  if (request.svg) {
    if (!RASTER_EXTENSIONS.has(extension)) {
      throw new BadRequestError('svg=true converts raster images (png, jpg, jpeg, webp, avif, heic, heif) only');
    }
    const name = displayName(file.filename, file.id, 'svg', true);
    result = request.head
      ? await tracedHead(storage, file, name)
      : await traced(storage, file.storageKey, limits, name, request.signal);
  } else {
    result = await streamed(storage, file, displayName(file.filename, file.id, extension), request);
  }
  // The file is on its way: the flag need not hold the first byte back.
  if (!request.head) files.markDownloaded(file, onError);
  return result;
}

/** HEAD of an SVG conversion: its length is known only by tracing, which a HEAD does not pay for. */
async function tracedHead(storage: Storage, file: AssetFile, name: string): Promise<Download> {
  await open(storage, file, undefined, true);
  return {
    status: 200,
    headers: { ...SAFE_HEADERS, 'Content-Type': 'image/svg+xml', 'Content-Disposition': attachmentDisposition(name) },
  };
}

async function traced(
  storage: Storage,
  key: string,
  limits: DownloadLimits,
  name: string,
  signal: AbortSignal | undefined,
): Promise<Download> {
  // An object's bytes never change under its store key, so the key names the
  // result; the original is read only when the tracer is free for it.
  const source = {
    key: `object:${key}`,
    read: async () => {
      try {
        return await readObject(storage, key, limits.maxTraceBytes);
      } catch (err) {
        throw storageError(err);
      }
    },
  };
  let svg: string;
  try {
    svg = await traceToSvg(source, { maxPixels: limits.maxPixels }, signal);
  } catch (err) {
    if (err instanceof UnprocessableMediaError)
      throw new BadRequestError(`The image cannot be converted: ${err.message}`);
    if (err instanceof TracerBusyError)
      throw new ServiceUnavailableError('The SVG converter is busy; try again shortly', err.retryAfterSeconds);
    throw err;
  }
  return {
    status: 200,
    headers: {
      ...SAFE_HEADERS,
      'Content-Type': 'image/svg+xml',
      'Content-Length': String(Buffer.byteLength(svg)),
      'Content-Disposition': attachmentDisposition(name),
    },
    body: svg,
  };
}

/** An object opened for the answer: its body, or for a HEAD only what the store says of it. */
interface Opened {
  body?: Readable;
  contentLength: number;
  contentRange?: string;
  eTag?: string;
}

const unsatisfiable = (size: number) =>
  new AppError(416, 'Range not satisfiable', {}, { 'Content-Range': `bytes */${size}` });

async function open(
  storage: Storage,
  file: Pick<AssetFile, 'storageKey' | 'size'>,
  range: ByteRange | undefined,
  head: boolean,
): Promise<Opened> {
  const key = file.storageKey;
  try {
    if (!head) return await openObject(storage, key, range ? `bytes=${range.start}-${range.end}` : undefined);
    const facts = await statObject(storage, key);
    if (!range) return facts;
    return {
      ...facts,
      contentLength: range.end - range.start + 1,
      contentRange: `bytes ${range.start}-${range.end}/${facts.contentLength}`,
    };
  } catch (err) {
    if (isInvalidRange(err)) throw unsatisfiable(file.size);
    throw storageError(err);
  }
}

async function streamed(
  storage: Storage,
  file: Pick<AssetFile, 'storageKey' | 'contentType' | 'size'>,
  name: string,
  request: DownloadRequest,
): Promise<Download> {
  const size = file.size;
  const head = request.head ?? false;
  const answer = (object: Opened, status: 200 | 206): Download => {
    const headers: Record<string, string> = {
      ...SAFE_HEADERS,
      'Content-Type': file.contentType,
      'Content-Length': String(object.contentLength),
      'Content-Disposition': attachmentDisposition(name),
      'Accept-Ranges': 'bytes',
    };
    if (object.eTag) headers.ETag = object.eTag;
    if (status === 206 && object.contentRange) headers['Content-Range'] = object.contentRange;
    return object.body ? { status, headers, body: object.body } : { status, headers };
  };
  const whole = async () => answer(await open(storage, file, undefined, head), 200);

  // If-Range: the range applies only while the file is the one the client
  // has. An entity tag is compared with the object's; a date cannot be
  // checked against anything we keep, so the whole file is sent. The check
  // comes before the range's (RFC 9110 13.2.2): a client whose copy is stale
  // gets the file, not a 416 for a range of its old copy.
  const ifRange = request.ifRange;
  const ifRangeIsTag = ifRange !== undefined && /^(W\/)?"/.test(ifRange);
  const range = ifRange !== undefined && !ifRangeIsTag ? undefined : parseRange(request.range, size);
  if (range === undefined) return whole();
  if (range === 'unsatisfiable') {
    if (!ifRangeIsTag) throw unsatisfiable(size);
    const object = await open(storage, file, undefined, head);
    if (object.eTag !== ifRange) return answer(object, 200);
    object.body?.destroy();
    throw unsatisfiable(size);
  }
  const object = await open(storage, file, range, head);
  if (ifRangeIsTag && object.eTag !== ifRange) {
    object.body?.destroy();
    return whole();
  }
  // A store that ignored the Range sent the whole file: so does the answer, as a 200.
  if (!object.contentRange) return answer(object, 200);
  return answer(object, 206);
}
