import { GateFullError, type AdmissionGate } from '@weft/admission';
import { AppError, BadRequestError, invalid, PayloadTooLargeError, ServiceUnavailableError } from '@weft/errors';
import { isStorageUnavailable, uploadMemoryBound, type Storage } from '@weft/storage';
import type { Request, Response } from 'express';
import multer from 'multer';
import {
  s3StorageEngine,
  StoreFailedError,
  UnsupportedContentError,
  UploadTooLargeError,
  type StoredFile,
} from './s3-storage-engine';
import { clientGoneSignal } from '../http/client-gone';

export interface ReceivedUpload {
  /** Undefined when the request had no `file` part. */
  file?: StoredFile & { originalname: string };
  /** The text fields, unvalidated. */
  fields: Record<string, unknown>;
}

export interface ReceiveOptions {
  storage: Storage;
  organizationId: string;
  maxBytes: number;
  /** What this instance's uploads may hold in memory at once (upload-memory.ts). */
  memory: AdmissionGate;
}

/**
 * The most a form adds around its file: the text fields multer accepts
 * (10 × 64 KiB), their names and the parts' headers and boundaries.
 */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** Multer's stream buffers (its highWaterMark and fileHwm): the request is paused and resumed per MiB. */
const STREAM_BUFFER_BYTES = 1024 * 1024;

/** A refused upload may try again after about this long: the uploads ahead take seconds each. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** Multer's limit errors as the contract's statuses: 413 for the file size, 422 for the form's shape. */
function fromMulter(err: multer.MulterError, maxBytes: number): AppError {
  if (err.code === 'LIMIT_FILE_SIZE') return new PayloadTooLargeError(`The file is larger than ${maxBytes} bytes`);
  const field = err.field ?? 'file';
  if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT') {
    return invalid(['body', field], 'Send exactly one file, in the field `file`', 'value_error');
  }
  return invalid(['body', field], `Malformed form: ${err.message}`, 'value_error');
}

function toAppError(err: unknown, maxBytes: number): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof multer.MulterError) return fromMulter(err, maxBytes);
  if (err instanceof UploadTooLargeError) return new PayloadTooLargeError(err.message);
  if (err instanceof UnsupportedContentError) return new BadRequestError(err.message);
  if (err instanceof StoreFailedError) {
    return isStorageUnavailable(err.cause) ? new ServiceUnavailableError('Storage is temporarily unavailable') : err;
  }
  // Anything else comes from busboy parsing the body, or the client going away.
  return new BadRequestError(`Malformed multipart body: ${(err as Error).message}`);
}

/** How long the rest of a refused body is read and dropped after the answer. */
const LINGER_MS = 10_000;

/**
 * Many clients (fetch, most HTTP libraries) write the whole body before they
 * read the answer. Closing the connection on a body still arriving makes the
 * kernel reset it, and such a client sees EPIPE instead of the 413. So the
 * rest is read and dropped (Node does that for an answered request whose body
 * nobody read), for at most LINGER_MS, as nginx's lingering close does; a
 * client that finishes sending in time keeps its connection.
 */
function lingerAfterAnswer(req: Request, res: Response): void {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
    timer.unref();
    const stop = () => clearTimeout(timer);
    req.once('end', stop).once('close', stop);
  });
}

/**
 * Runs multer with the S3 storage engine over the request, once the memory
 * the upload can hold is reserved (upload-memory.ts). On any error multer has
 * already removed what was stored (and drained the request, so the client
 * reads the answer instead of a reset connection).
 */
export async function receiveUpload(req: Request, res: Response, receive: ReceiveOptions): Promise<ReceivedUpload> {
  // A declared length that cannot fit answers 413 before a byte of the body is read.
  // Without a length (chunked), the limit applies as the file streams.
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > receive.maxBytes + FORM_OVERHEAD_BYTES) {
    lingerAfterAnswer(req, res);
    throw new PayloadTooLargeError(`The file is larger than ${receive.maxBytes} bytes`);
  }
  // The most this upload can hold in memory; a declared length caps it (Node's
  // parser reads no more body than that).
  const bound = uploadMemoryBound(receive.maxBytes) + 2 * STREAM_BUFFER_BYTES;
  let release: () => void;
  try {
    release = await receive.memory.acquire(
      Number.isFinite(declared) ? Math.min(declared, bound) : bound,
      clientGoneSignal(res),
    );
  } catch (err) {
    if (!(err instanceof GateFullError)) throw err;
    lingerAfterAnswer(req, res);
    throw new ServiceUnavailableError('Too many uploads in progress; try again shortly', BUSY_RETRY_AFTER_SECONDS);
  }
  try {
    return await parseUpload(req, res, receive);
  } finally {
    release();
  }
}

function parseUpload(req: Request, res: Response, receive: ReceiveOptions): Promise<ReceivedUpload> {
  // multer 2.5 takes highWaterMark and fileHwm; @types/multer 2.3 does not list them yet.
  const multerOptions: multer.Options & { highWaterMark: number; fileHwm: number } = {
    storage: s3StorageEngine(receive),
    // Browsers send file names as raw UTF-8 (busboy would read them as latin1).
    defParamCharset: 'utf8',
    // Stream buffers of 1 MiB instead of Node's 16 KiB: the request is paused and
    // resumed per MiB rather than per socket read (a bounded 2 MiB per upload).
    highWaterMark: STREAM_BUFFER_BYTES,
    fileHwm: STREAM_BUFFER_BYTES,
    limits: { fileSize: receive.maxBytes, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12, fieldNameSize: 100 },
  };
  const upload = multer(multerOptions).single('file');
  return new Promise((resolve, reject) => {
    upload(req, res, (err: unknown) => {
      if (err) return reject(toAppError(err, receive.maxBytes));
      const file = req.file as (StoredFile & { originalname: string }) | undefined;
      resolve({ fields: { ...(req.body as Record<string, unknown>) }, ...(file ? { file } : {}) });
    });
  });
}
