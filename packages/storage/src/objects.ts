import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
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
 * HTTP Range syntax S3 takes as is). Errors are the SDK's: see errors.ts.
 */
export async function openObject(storage: Storage, key: string, range?: string): Promise<ObjectStream> {
  const out = await storage.client.send(
    new GetObjectCommand({
      Bucket: storage.bucket,
      Key: key,
      ...(range ? { Range: range } : {}),
    }),
  );
  const result: ObjectStream = { body: out.Body as Readable, contentLength: out.ContentLength ?? 0 };
  if (out.ContentRange) result.contentRange = out.ContentRange;
  if (out.ETag) result.eTag = out.ETag;
  return result;
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
