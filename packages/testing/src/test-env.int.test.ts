import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '@weft/devstack';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createTestEnv, type TestEnv } from './create-test-env';

// One test environment, exercised over real connections to all three services.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.cleanup());

test('the database is a migrated copy of the template and accepts writes', async () => {
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['organizations', '_prisma_migrations']));

    const inserted = await client.query<{ id: string }>(
      'INSERT INTO organizations (id, name, credits) VALUES (gen_random_uuid(), $1, 5) RETURNING id',
      ['test org'],
    );
    const { rows } = await client.query('SELECT name, credits FROM organizations WHERE id = $1', [
      inserted.rows[0]?.id,
    ]);
    expect(rows).toEqual([{ name: 'test org', credits: 5 }]);
  } finally {
    await client.end();
  }
});

test('Redis keys live under the environment prefix', async () => {
  const redis = new Redis(env.redisUrl, { keyPrefix: `${env.redisPrefix}:` });
  const plain = new Redis(env.redisUrl);
  try {
    await redis.set('greeting', 'hello');
    expect(await redis.get('greeting')).toBe('hello');
    expect(await plain.get(`${env.redisPrefix}:greeting`)).toBe('hello');
  } finally {
    redis.disconnect();
    plain.disconnect();
  }
});

test('objects round-trip through the bucket', async () => {
  const s3 = createS3Client(env.s3);
  try {
    await s3.send(new PutObjectCommand({ Bucket: env.s3.bucket, Key: 'a/b.txt', Body: 'stored bytes' }));
    const object = await s3.send(new GetObjectCommand({ Bucket: env.s3.bucket, Key: 'a/b.txt' }));
    expect(await object.Body?.transformToString()).toBe('stored bytes');
  } finally {
    s3.destroy();
  }
});
