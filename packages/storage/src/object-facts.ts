import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { Storage } from './s3-storage';

export interface ObjectFacts {
  contentLength: number;
  eTag?: string;
}

/**
 * What the store says of an object without sending it (HeadObject): for HEAD
 * requests, which must answer as the GET would without moving its bytes.
 * A missing object fails as `isMissingObject`, an unreachable store as
 * `isStorageUnavailable` (errors.ts).
 */
export async function statObject(storage: Storage, key: string): Promise<ObjectFacts> {
  const head = await storage.client.send(new HeadObjectCommand({ Bucket: storage.bucket, Key: key }));
  const facts: ObjectFacts = { contentLength: head.ContentLength ?? 0 };
  if (head.ETag) facts.eTag = head.ETag;
  return facts;
}
