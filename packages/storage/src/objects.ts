import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
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
 * A plain GET of a presigned URL on a keep-alive agent rather than the SDK's
 * GetObjectCommand: the SDK runs its whole middleware stack for every call,
 * which on a download of a small file costs more CPU than moving its bytes
 * (see bench:assets). Signing is one HMAC chain, remembered per key for a
 * while (createUrlSigner).
 */
export async function openObject(storage: Storage, key: string, range?: string): Promise<ObjectStream> {
  const url = new URL(await readSignerOf(storage).urlFor(key));
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<ObjectStream>((resolve, reject) => {
    const req = transport.get(
      url,
      {
        agent: url.protocol === 'https:' ? storage.readAgents.https : storage.readAgents.http,
        headers: range ? { Range: range } : {},
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200 && status !== 206) {
          readErrorCode(res).then((code) => reject(new StorageHttpError(status, code)), reject);
          return;
        }
        const result: ObjectStream = { body: res, contentLength: Number(res.headers['content-length'] ?? 0) };
        if (res.headers['content-range']) result.contentRange = res.headers['content-range'];
        if (res.headers.etag) result.eTag = res.headers.etag;
        resolve(result);
      },
    );
    // Idle for this long (no answer, or a body that stopped flowing): the store is unavailable.
    req.setTimeout(READ_IDLE_TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error(`S3 read of ${key} timed out`), { name: 'TimeoutError' })),
    );
    req.on('error', reject);
  });
}

const READ_IDLE_TIMEOUT_MS = 30_000;
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

/** An S3 error answer, shaped like the SDK's service exceptions. */
class StorageHttpError extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(status: number, code: string | undefined) {
    super(`S3 answered ${status}${code ? ` ${code}` : ''}`);
    this.name = code ?? (status === 404 ? 'NoSuchKey' : status === 416 ? 'InvalidRange' : 'S3Error');
    this.$metadata = { httpStatusCode: status };
  }
}

/** The `<Code>` of an S3 XML error body (read up to 64 KiB). */
async function readErrorCode(res: http.IncomingMessage): Promise<string | undefined> {
  let text = '';
  for await (const chunk of res) {
    if (text.length < 64 * 1024) text += String(chunk);
  }
  return /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
}

/** Reads a whole object into memory; refuses objects larger than `maxBytes`. */
export async function readObject(storage: Storage, key: string, maxBytes: number): Promise<Buffer> {
  const { body, contentLength } = await openObject(storage, key);
  if (contentLength > maxBytes) {
    body.destroy();
    throw new Error(`Object ${key} has ${contentLength} bytes, more than the ${maxBytes} allowed here`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
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
