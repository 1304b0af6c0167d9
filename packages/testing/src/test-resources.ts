import {
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  AbortMultipartUploadCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { quoteIdentifier } from '@weft/devstack';
import type { Redis } from 'ioredis';
import pg from 'pg';

// Creating and removing the per-file resources. Shared by createTestEnv's
// cleanup() and the janitor that removes what killed runs left behind.

export async function withAdminClient<T>(adminDatabaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function createDatabaseFromTemplate(client: pg.Client, database: string, template: string): Promise<void> {
  await client.query(`CREATE DATABASE ${quoteIdentifier(database)} TEMPLATE ${quoteIdentifier(template)}`);
}

/** `force` disconnects whoever still uses it (the test's own pools, if it leaked them). */
export async function dropDatabase(client: pg.Client, database: string, force: boolean): Promise<void> {
  await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)}${force ? ' WITH (FORCE)' : ''}`);
}

/** Deletes every key starting with `prefix` (SCAN, never KEYS, so a shared Redis is not blocked). */
export async function deleteRedisKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Empties the bucket (objects and unfinished multipart uploads), then deletes it. */
export async function deleteBucket(s3: S3Client, bucket: string): Promise<void> {
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
    if (objects.length) await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects } }));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket })).catch(() => undefined);
  for (const upload of uploads?.Uploads ?? []) {
    await s3
      .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }))
      .catch(() => undefined);
  }
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
}
