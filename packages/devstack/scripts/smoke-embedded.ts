// Manual check of the embedded path: starts PostgreSQL, Redis and s3rver on
// spare ports (nothing listens there, so all three are embedded), writes a
// value into each, stops them, starts them again from the same folders and
// reads the values back. Run: npx tsx packages/devstack/scripts/smoke-embedded.ts [dataDir]
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import Redis from 'ioredis';
import path from 'node:path';
import pg from 'pg';
import { createS3Client, ensureBucket, ensureDatabase, ensurePostgres, ensureRedis, ensureS3 } from '../src';

const dataDir = path.resolve(process.argv[2] ?? '.weft/smoke');
const ports = { postgres: 55432, redis: 56379, s3: 59000 };
const log = (line: string) => console.log(`  ${line}`);

async function startAll() {
  const started = Date.now();
  const [postgres, redis, s3] = await Promise.all([
    ensurePostgres({ dataDir: path.join(dataDir, 'postgres'), port: ports.postgres, database: 'smoke', log }),
    ensureRedis({ dataDir: path.join(dataDir, 'redis'), port: ports.redis, log }),
    ensureS3({ dataDir: path.join(dataDir, 's3'), port: ports.s3, log }),
  ]);
  console.log(`started in ${Date.now() - started} ms (${postgres.source}, ${redis.source}, ${s3.source})`);
  const stop = async () => {
    const t = Date.now();
    await Promise.all([postgres.stop(), redis.stop(), s3.stop()]);
    console.log(`stopped in ${Date.now() - t} ms`);
  };
  return { postgres, redis, s3, stop };
}

async function main() {
  const stamp = new Date().toISOString();
  let stack = await startAll();
  await ensureDatabase(stack.postgres.url);
  await ensureBucket(stack.s3.settings, 'smoke');
  const db = new pg.Client({ connectionString: stack.postgres.url });
  await db.connect();
  await db.query('CREATE TABLE IF NOT EXISTS notes (body text)');
  await db.query('INSERT INTO notes VALUES ($1)', [stamp]);
  await db.end();
  const redis = new Redis(stack.redis.url);
  await redis.set('smoke:stamp', stamp);
  await redis.quit();
  const s3 = createS3Client(stack.s3.settings);
  await s3.send(new PutObjectCommand({ Bucket: 'smoke', Key: 'stamp.txt', Body: stamp }));
  s3.destroy();
  await stack.stop();

  stack = await startAll();
  const db2 = new pg.Client({ connectionString: stack.postgres.url });
  await db2.connect();
  const rows = await db2.query('SELECT body FROM notes WHERE body = $1', [stamp]);
  await db2.end();
  const redis2 = new Redis(stack.redis.url);
  const cached = await redis2.get('smoke:stamp');
  const policy = (await redis2.config('GET', 'maxmemory-policy')) as string[];
  await redis2.quit();
  const s32 = createS3Client(stack.s3.settings);
  const object = await s32.send(new GetObjectCommand({ Bucket: 'smoke', Key: 'stamp.txt' }));
  const stored = await object.Body?.transformToString();
  s32.destroy();
  await stack.stop();

  const ok = rows.rowCount === 1 && cached === stamp && stored === stamp;
  console.log(
    `after restart: postgres row=${rows.rowCount === 1} redis=${cached === stamp} (${policy.join('=')}) s3=${stored === stamp}`,
  );
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
