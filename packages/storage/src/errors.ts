import { SOCKET_ERROR_CODES } from '@weft/errors';

// How S3 failures are told apart. The SDK reports network failures as plain
// Node errors and service failures with `$metadata.httpStatusCode`.

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

/** The store could not be reached or answered with a server error: try again later (HTTP 503). */
export function isStorageUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SdkError;
  if (e.code && SOCKET_ERROR_CODES.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'RequestTimeout' || e.name === 'SlowDown') return true;
  // The SDK wraps errors it does not recognise as Error instances (another
  // realm's, as under jest) into a new Error that keeps only the message.
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && [...SOCKET_ERROR_CODES].some((code) => message.includes(code))) return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return true;
  // Aggregated connection errors (happy-eyeballs) carry the codes of their parts.
  const inner = (err as { errors?: unknown[] }).errors;
  return Array.isArray(inner) && inner.some(isStorageUnavailable);
}

/** The object (or its bucket) does not exist. */
export function isMissingObject(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SdkError;
  return (
    e.name === 'NoSuchKey' || e.name === 'NotFound' || e.name === 'NoSuchBucket' || e.$metadata?.httpStatusCode === 404
  );
}

/** The requested byte range lies outside the object. */
export function isInvalidRange(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SdkError;
  return e.name === 'InvalidRange' || e.$metadata?.httpStatusCode === 416;
}
