import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { Storage } from './s3-storage';

/** S3's smallest part; also lib-storage's default. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3 allows at most 10 000 parts per multipart upload. */
const MAX_PARTS = 10_000;

export interface StreamUpload {
  key: string;
  /** The bytes, as they arrive (a Readable is one). */
  body: AsyncIterable<Buffer>;
  contentType: string;
  /** Largest body expected; sets the part size so that it fits in 10 000 parts. */
  maxBytes: number;
  /** Aborting it aborts the multipart upload: nothing is left in the bucket. */
  signal?: AbortSignal;
}

/**
 * Streams `body` into the bucket. A body that ends within one part (most
 * uploads) is sent as one PUT of the chunks as they arrived, with its length;
 * a longer one becomes a multipart upload through lib-storage, which holds at
 * most (queueSize + 1) parts in memory (about 25 MiB at the default part
 * size) whatever the body's length. Any failure (the body stream erroring,
 * the signal, the store) aborts the multipart upload, so no parts linger.
 *
 * The single PUT sends a stream, not one buffer: lib-storage would first copy
 * the chunks into one buffer, and the SDK signs a buffer's SHA-256 (a second
 * pass over every byte) where it sends a stream's as UNSIGNED-PAYLOAD, as for
 * any streamed PutObject. The store still checks the length; TLS to the store
 * (any S3 but a local one) protects the bytes on the way, as it does on reads.
 */
export async function uploadStream(storage: Storage, upload: StreamUpload): Promise<void> {
  const partSize = Math.max(MIN_PART_BYTES, Math.ceil(upload.maxBytes / MAX_PARTS));
  const source = upload.body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let length = 0;
  while (length <= partSize) {
    const next = await source.next();
    if (next.done) return putWhole(storage, upload, head, length);
    head.push(next.value);
    length += next.value.length;
  }
  async function* rest() {
    yield* head;
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      yield next.value;
    }
  }
  await uploadParts(storage, upload, Readable.from(rest(), { objectMode: false }), partSize);
}

async function putWhole(storage: Storage, upload: StreamUpload, chunks: Buffer[], length: number): Promise<void> {
  upload.signal?.throwIfAborted();
  await storage.client.send(
    new PutObjectCommand({
      Bucket: storage.bucket,
      Key: upload.key,
      Body: Readable.from(chunks, { objectMode: false }),
      ContentLength: length,
      ContentType: upload.contentType,
    }),
    upload.signal ? { abortSignal: upload.signal } : {},
  );
}

async function uploadParts(storage: Storage, upload: StreamUpload, body: Readable, partSize: number): Promise<void> {
  const task = new Upload({
    client: storage.client,
    params: { Bucket: storage.bucket, Key: upload.key, Body: body, ContentType: upload.contentType },
    partSize,
    queueSize: 4,
    leavePartsOnError: false,
  });
  const onAbort = () => void task.abort().catch(() => undefined);
  if (upload.signal?.aborted) onAbort();
  upload.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await task.done();
  } finally {
    upload.signal?.removeEventListener('abort', onAbort);
  }
}
