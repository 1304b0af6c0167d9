import { HeadBucketCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '@weft/devstack';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createTestEnv, type TestEnv } from './create-test-env';

// Two environments side by side see nothing of each other, and cleanup()
// leaves nothing behind. Runs in parallel with test-env.int.test.ts.

async function query<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

let first: TestEnv;
let second: TestEnv;
beforeAll(async () => {
  [first, second] = await Promise.all([createTestEnv(), createTestEnv()]);
});
afterAll(() => Promise.all([first?.cleanup(), second?.cleanup()]));

test('each environment has its own database, prefix and bucket', async () => {
  expect(new Set([first.databaseUrl, second.databaseUrl]).size).toBe(2);
  expect(first.redisPrefix).not.toBe(second.redisPrefix);
  expect(first.s3.bucket).not.toBe(second.s3.bucket);

  await query(first.databaseUrl, "INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'only in first')");
  expect(await query(second.databaseUrl, 'SELECT * FROM organizations')).toEqual([]);

  const s3 = createS3Client(first.s3);
  try {
    await s3.send(new PutObjectCommand({ Bucket: first.s3.bucket, Key: 'x', Body: 'x' }));
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: second.s3.bucket }));
    expect(listed.Contents ?? []).toEqual([]);
  } finally {
    s3.destroy();
  }
});

test('cleanup() removes the database, the keys and the bucket, and may be called twice', async () => {
  const env = await createTestEnv();
  const redis = new Redis(env.redisUrl);
  const s3 = createS3Client(env.s3);
  try {
    await redis.set(`${env.redisPrefix}:job:1`, 'queued');
    await s3.send(new PutObjectCommand({ Bucket: env.s3.bucket, Key: 'left-behind.txt', Body: 'x' }));

    await env.cleanup();
    await env.cleanup();

    const database = new URL(env.databaseUrl).pathname.slice(1);
    const admin = new URL(env.databaseUrl);
    admin.pathname = '/postgres';
    expect(await query(admin.toString(), 'SELECT 1 FROM pg_database WHERE datname = $1', [database])).toEqual([]);
    expect(await redis.exists(`${env.redisPrefix}:job:1`)).toBe(0);
    await expect(s3.send(new HeadBucketCommand({ Bucket: env.s3.bucket }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
  } finally {
    redis.disconnect();
    s3.destroy();
  }
});
