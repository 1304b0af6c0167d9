import fs from 'node:fs';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dispositionFilename } from './disposition';

// Writing a download (`GET /assets/{id}/download`) to disk or a stream.

export interface Downloaded {
  /** Where the file was written; undefined when written to a stream. */
  path?: string;
  bytes: number;
  contentType: string | null;
  /** The name the gateway gives the file (Content-Disposition). */
  filename: string | undefined;
}

/**
 * Writes the body of `response` to `destination`: a directory (the file keeps
 * the gateway's name), a file path, or a writable stream. A file appears only
 * once complete: the bytes go to `<name>.part` first, renamed at the end.
 */
export async function writeDownload(
  response: Response,
  destination: string | Writable,
  fallbackName: string,
  signal?: AbortSignal,
): Promise<Downloaded> {
  const filename = dispositionFilename(response.headers.get('content-disposition'));
  const contentType = response.headers.get('content-type');
  let bytes = 0;
  const counted = Readable.fromWeb(response.body as never).on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  if (typeof destination !== 'string') {
    await pipeline(counted, destination, { signal });
    return { bytes, contentType, filename };
  }
  const target = isDirectory(destination) ? path.join(destination, filename ?? fallbackName) : destination;
  const partial = `${target}.part`;
  try {
    await pipeline(counted, fs.createWriteStream(partial), { signal });
    await fs.promises.rename(partial, target);
  } catch (err) {
    await fs.promises.rm(partial, { force: true });
    throw err;
  }
  return { path: target, bytes, contentType, filename };
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
