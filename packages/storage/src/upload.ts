import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { isStorageUnavailable } from './errors';
import { requestStore, storageHttpError } from './plain-http';
import { presignPut } from './presign';
import type { Storage } from './s3-storage';

/** S3's smallest part; also lib-storage's default. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3 allows at most 10 000 parts per multipart upload. */
const MAX_PARTS = 10_000;
/** Parts of one multipart upload sent at once (lib-storage's queueSize). */
const PARTS_IN_FLIGHT = 4;

function partSizeFor(maxBytes: number): number {
  return Math.max(MIN_PART_BYTES, Math.ceil(maxBytes / MAX_PARTS));
}

/**
 * The most one uploadStream() holds in memory for a body of at most
 * `maxBytes`: the parts in flight and the one being filled. A body that fits
 * in one part holds no more than its own length.
 */
export function uploadMemoryBound(maxBytes: number): number {
  return (PARTS_IN_FLIGHT + 1) * partSizeFor(maxBytes);
}

export interface StreamUpload {
  key: string;
  /** The bytes, as they arrive (a Readable is one). */
  body: AsyncIterable<Buffer>;
  /** Stored with the object: what the store (and a CDN in front of it) answers a plain GET with. */
  contentType: string;
  contentDisposition?: string;
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
 * The single PUT writes the chunks as they are to a presigned URL
 * (plain-http.ts): lib-storage would first copy them into one buffer and
 * hash it for the signature (a second pass over every byte), and the SDK's
 * middleware stack costs more CPU than a 1 MiB body's bytes. The payload is
 * UNSIGNED-PAYLOAD, as for the SDK's own streamed PUTs; the store still
 * checks the length, and TLS to the store (any S3 but a local one) protects
 * the bytes on the way, as it does on reads.
 */
export async function uploadStream(storage: Storage, upload: StreamUpload): Promise<void> {
  const partSize = partSizeFor(upload.maxBytes);
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

/** How long the URL of a single PUT stays valid: it is used at once. */
const PUT_URL_TTL_SECONDS = 600;

/**
 * Tries of a single PUT, as the SDK's client makes (maxAttempts): a store
 * that is briefly unavailable, or a keep-alive socket it closed as we reused
 * it, gets a second try. The chunks are still in memory.
 */
const PUT_ATTEMPTS = 2;

async function putWhole(storage: Storage, upload: StreamUpload, chunks: Buffer[], length: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await putOnce(storage, upload, chunks, length);
    } catch (err) {
      if (attempt >= PUT_ATTEMPTS || upload.signal?.aborted || !isStorageUnavailable(err)) throw err;
    }
  }
}

async function putOnce(storage: Storage, upload: StreamUpload, chunks: Buffer[], length: number): Promise<void> {
  upload.signal?.throwIfAborted();
  const url = new URL(await presignPut(storage, upload.key, PUT_URL_TTL_SECONDS));
  await new Promise<void>((resolve, reject) => {
    const req = requestStore(
      storage,
      url,
      {
        method: 'PUT',
        headers: {
          'Content-Length': String(length),
          'Content-Type': upload.contentType,
          ...(upload.contentDisposition ? { 'Content-Disposition': upload.contentDisposition } : {}),
        },
        ...(upload.signal ? { signal: upload.signal } : {}),
      },
      `S3 write of ${upload.key}`,
    );
    req.on('response', (res) => {
      if (res.statusCode === 200) {
        res.resume();
        res.on('end', resolve);
        res.on('error', reject);
      } else {
        storageHttpError(res.statusCode ?? 0, res).then(reject, reject);
      }
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

async function uploadParts(storage: Storage, upload: StreamUpload, body: Readable, partSize: number): Promise<void> {
  const task = new Upload({
    client: storage.client,
    params: {
      Bucket: storage.bucket,
      Key: upload.key,
      Body: body,
      ContentType: upload.contentType,
      ...(upload.contentDisposition ? { ContentDisposition: upload.contentDisposition } : {}),
    },
    partSize,
    queueSize: PARTS_IN_FLIGHT,
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
