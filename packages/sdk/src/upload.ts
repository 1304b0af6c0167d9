import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

// The file of an upload (`POST /assets/upload`, docs/api.md#assets), from a
// path, bytes or a stream, encoded as multipart/form-data (RFC 7578) while it
// is sent, so that a large file is never held in memory.

/** Bytes (Buffer, Uint8Array, Blob), a Node or web stream, or a path (see `file()`). */
export type FileSource = Uint8Array | Blob | NodeJS.ReadableStream | ReadableStream<Uint8Array> | WeftFile;

/** A file named by its path, or any source with the name to upload it under. */
export class WeftFile {
  constructor(
    readonly source: string | Exclude<FileSource, WeftFile>,
    readonly filename?: string,
  ) {}
}

/** `file('photo.png')`: a file on disk (a string alone is text in run inputs); also names bytes or streams. */
export function file(source: string | Exclude<FileSource, WeftFile>, filename?: string): WeftFile {
  return new WeftFile(source, filename);
}

export function isFileSource(value: unknown): value is FileSource {
  return (
    value instanceof WeftFile ||
    value instanceof Uint8Array ||
    value instanceof Blob ||
    value instanceof ReadableStream ||
    value instanceof Readable ||
    (typeof value === 'object' && value !== null && typeof (value as NodeJS.ReadableStream).pipe === 'function')
  );
}

/** What an upload sends: the file's name and a way to read it, once or again for a retry. */
export interface UploadBody {
  filename: string;
  /** False for streams: they can be read once, so the upload is not retried. */
  replayable: boolean;
  open(): AsyncIterable<Uint8Array>;
}

export function uploadBody(source: string | FileSource, filename?: string): UploadBody {
  if (source instanceof WeftFile) return uploadBody(source.source, filename ?? source.filename);
  if (typeof source === 'string') {
    // Read now, so that a missing file fails before any request.
    fs.accessSync(source, fs.constants.R_OK);
    return { filename: filename ?? path.basename(source), replayable: true, open: () => fs.createReadStream(source) };
  }
  if (source instanceof Uint8Array) {
    return { filename: filename ?? 'upload', replayable: true, open: () => oneChunk(source) };
  }
  if (source instanceof Blob) {
    const name = filename ?? ((source as { name?: unknown }).name as string | undefined) ?? 'upload';
    return { filename: name, replayable: true, open: () => Readable.fromWeb(source.stream() as never) };
  }
  let used = false;
  const stream: AsyncIterable<Uint8Array> =
    source instanceof ReadableStream ? Readable.fromWeb(source as never) : (source as AsyncIterable<Uint8Array>);
  return {
    filename: filename ?? streamPathName(source) ?? 'upload',
    replayable: false,
    open: () => {
      if (used) throw new Error('A stream can be uploaded once');
      used = true;
      return stream;
    },
  };
}

async function* oneChunk(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** fs.createReadStream remembers its path: its name is a better default than "upload". */
function streamPathName(source: unknown): string | undefined {
  const p = (source as { path?: unknown }).path;
  return typeof p === 'string' ? path.basename(p) : undefined;
}

export interface Multipart {
  contentType: string;
  body(): ReadableStream<Uint8Array>;
}

/** Text fields first (the gateway reads them with the file), then the file part. */
export function multipart(fields: Record<string, string | undefined>, file: UploadBody): Multipart {
  const boundary = `----weft-sdk-${randomBytes(12).toString('hex')}`;
  const crlf = '\r\n';
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    head += `--${boundary}${crlf}Content-Disposition: form-data; name="${name}"${crlf}${crlf}${value}${crlf}`;
  }
  head +=
    `--${boundary}${crlf}Content-Disposition: form-data; name="file"; filename="${quoteFilename(file.filename)}"` +
    `${crlf}Content-Type: application/octet-stream${crlf}${crlf}`;
  const tail = `${crlf}--${boundary}--${crlf}`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: () =>
      ReadableStream.from(
        (async function* () {
          yield Buffer.from(head);
          for await (const chunk of file.open()) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          yield Buffer.from(tail);
        })(),
      ) as ReadableStream<Uint8Array>,
  };
}

/**
 * A part's filename as HTML forms send it: quotes and line breaks escaped, and
 * only ASCII (the display name travels whole in the `filename` field).
 */
function quoteFilename(name: string): string {
  return name
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/"/g, '%22')
    .replace(/\\/g, '_');
}
