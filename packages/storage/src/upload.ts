import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { Storage } from './s3-storage';

/** S3's smallest part; also lib-storage's default. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3 allows at most 10 000 parts per multipart upload. */
const MAX_PARTS = 10_000;

export interface StreamUpload {
  key: string;
  body: Readable;
  contentType: string;
  /** Largest body expected; sets the part size so that it fits in 10 000 parts. */
  maxBytes: number;
  /** Aborting it aborts the multipart upload: nothing is left in the bucket. */
  signal?: AbortSignal;
}

/**
 * Streams `body` into the bucket with lib-storage: a single PUT for a body
 * shorter than one part, otherwise a multipart upload that holds at most
 * (queueSize + 1) parts in memory — about 25 MiB at the default part size —
 * whatever the body's length. Any failure (the body stream erroring, the
 * signal, the store) aborts the multipart upload, so no parts linger.
 */
export async function uploadStream(storage: Storage, upload: StreamUpload): Promise<void> {
  const partSize = Math.max(MIN_PART_BYTES, Math.ceil(upload.maxBytes / MAX_PARTS));
  const task = new Upload({
    client: storage.client,
    params: { Bucket: storage.bucket, Key: upload.key, Body: upload.body, ContentType: upload.contentType },
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
