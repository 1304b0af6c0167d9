import type { Readable } from 'node:stream';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { storageHttpError } from './plain-http';
import { createUrlSigner, type UrlSigner } from './presign';
import type { Storage } from './s3-storage';

export interface ObjectStream {
  body: Readable;
  /** Bytes in this response (the range's length for a ranged read). */
  contentLength: number;
  /** `bytes a-b/total` for a ranged read. */
  contentRange?: string;
  eTag?: string;
}

/**
 * Opens an object for reading, optionally a byte range (`bytes=0-99`, the
 * HTTP Range syntax S3 takes as is). Errors look like the SDK's (name and
 * `$metadata.httpStatusCode`), so errors.ts tells them apart the same way.
 *
 * A plain GET of a presigned URL through the storage's object reader rather
 * than the SDK's GetObjectCommand, whose middleware stack costs more CPU per
 * read than a small object's bytes. Signing is one HMAC chain, remembered per
 * key for a while (createUrlSigner).
 */
export async function openObject(storage: Storage, key: string, range?: string): Promise<ObjectStream> {
  const url = new URL(await readSignerOf(storage).urlFor(key));
  const res = await storage.reader.get(url, range ? { Range: range } : {}, `S3 read of ${key}`);
  if (res.status !== 200 && res.status !== 206) throw await storageHttpError(res.status, res.body);
  return objectStream(res.body, res.headers);
}

function objectStream(body: Readable, headers: Record<string, string | undefined>): ObjectStream {
  const result: ObjectStream = { body, contentLength: Number(headers['content-length'] ?? 0) };
  if (headers['content-range']) result.contentRange = headers['content-range'];
  if (headers.etag) result.eTag = headers.etag;
  return result;
}

/** How long the URLs our own reads sign stay valid; they are used at once. */
const READ_URL_TTL_SECONDS = 600;

const readSigners = new WeakMap<Storage, UrlSigner>();

function readSignerOf(storage: Storage): UrlSigner {
  let signer = readSigners.get(storage);
  if (!signer) {
    signer = createUrlSigner(storage, { ttlSeconds: READ_URL_TTL_SECONDS, audience: 'servers' });
    readSigners.set(storage, signer);
  }
  return signer;
}

/** The object is larger than the caller reads into memory: reading it again cannot help. */
export class ObjectTooLargeError extends Error {
  constructor(
    readonly key: string,
    readonly sizeBytes: number,
    readonly maxBytes: number,
  ) {
    super(`Object ${key} has ${sizeBytes} bytes, more than the ${maxBytes} allowed here`);
    this.name = 'ObjectTooLargeError';
  }
}

/** Reads a whole object into memory; refuses objects larger than `maxBytes` (ObjectTooLargeError). */
export async function readObject(storage: Storage, key: string, maxBytes: number): Promise<Buffer> {
  const { body, contentLength } = await openObject(storage, key);
  if (contentLength > maxBytes) {
    body.destroy();
    throw new ObjectTooLargeError(key, contentLength, maxBytes);
  }
  // A known length is read into one buffer of that size: the object's bytes
  // are held once, not as chunks and then their concatenation.
  if (contentLength > 0) return readInto(body, Buffer.allocUnsafe(contentLength), key);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    // A body without Content-Length (chunked) is bounded as it arrives.
    if (size > maxBytes) {
      body.destroy();
      throw new ObjectTooLargeError(key, size, maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Copies `body` into `into`, which its Content-Length sized: a body of another length is a failed read. */
async function readInto(body: Readable, into: Buffer, key: string): Promise<Buffer> {
  let size = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    if (size + bytes.length > into.length) {
      body.destroy();
      throw new Error(`S3 read of ${key}: more bytes than its Content-Length (${into.length})`);
    }
    bytes.copy(into, size);
    size += bytes.length;
  }
  if (size < into.length) throw new Error(`S3 read of ${key}: ${size} bytes of its Content-Length (${into.length})`);
  return into;
}

/** Writes a small object (a thumbnail) in one request. */
export async function putObject(storage: Storage, key: string, body: Buffer, contentType: string): Promise<void> {
  await storage.client.send(
    new PutObjectCommand({ Bucket: storage.bucket, Key: key, Body: body, ContentType: contentType }),
  );
}

/** Deletes an object; deleting one that does not exist succeeds (S3 semantics). */
export async function deleteObject(storage: Storage, key: string): Promise<void> {
  await storage.client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: key }));
}
