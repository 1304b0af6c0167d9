import { createS3Client, ensureBucket, withDatabaseName } from '@weft/devstack';
import { Redis } from 'ioredis';
import { readTestServices } from './test-services-env';
import { newTestResourceNames } from './test-resource-names';
import {
  createDatabaseFromTemplate,
  deleteBucket,
  deleteRedisKeys,
  dropDatabase,
  withAdminClient,
} from './test-resources';

export interface TestS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Created for this environment, deleted (with its objects) by cleanup(). */
  bucket: string;
  forcePathStyle: boolean;
}

export interface TestEnv {
  /** A database of its own, a copy of the migrated template; dropped by cleanup(). */
  databaseUrl: string;
  /**
   * The same database through the run's PgBouncer in transaction mode, with
   * `pgbouncer=true`: for a gateway or worker configured as behind one.
   */
  pgbouncerDatabaseUrl: string;
  redisUrl: string;
  /**
   * Prefix for every Redis key this environment writes, without a trailing
   * colon: use it as REDIS_PREFIX / BullMQ `prefix`, or `${redisPrefix}:` as an
   * ioredis `keyPrefix`. cleanup() deletes every key that starts with it.
   */
  redisPrefix: string;
  s3: TestS3;
  /** The same settings as the variables the gateway and worker read (DATABASE_URL, REDIS_URL, REDIS_PREFIX, S3_*). */
  env: Record<string, string>;
  /** Drops the database, deletes the Redis keys and the bucket. Idempotent; call it in afterAll. */
  cleanup(): Promise<void>;
}

/**
 * Isolated PostgreSQL database, Redis key prefix and S3 bucket for one test
 * file (or one test), on the services the jest globalSetup provides.
 *
 *   let env: TestEnv;
 *   beforeAll(async () => { env = await createTestEnv(); });
 *   afterAll(() => env.cleanup());
 *
 * Close your own clients before cleanup(): it drops the database with FORCE,
 * which would otherwise cut their connections and make them log errors.
 */
export async function createTestEnv(): Promise<TestEnv> {
  const services = readTestServices();
  const names = newTestResourceNames();

  await withAdminClient(services.adminDatabaseUrl, (client) =>
    createDatabaseFromTemplate(client, names.database, services.templateDatabase),
  );
  try {
    await ensureBucket(services.s3, names.bucket);
  } catch (err) {
    await withAdminClient(services.adminDatabaseUrl, (client) => dropDatabase(client, names.database, true));
    throw err;
  }

  const databaseUrl = withDatabaseName(services.adminDatabaseUrl, names.database);
  const s3: TestS3 = { ...services.s3, bucket: names.bucket };
  let cleaned: Promise<void> | undefined;

  return {
    databaseUrl,
    pgbouncerDatabaseUrl: withDatabaseName(services.pgbouncerUrl, names.database),
    redisUrl: services.redisUrl,
    redisPrefix: names.redisPrefix,
    s3,
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: services.redisUrl,
      REDIS_PREFIX: names.redisPrefix,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_BUCKET: s3.bucket,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
    },
    cleanup() {
      cleaned ??= removeAll(services.adminDatabaseUrl, services.redisUrl, names, s3);
      return cleaned;
    },
  };
}

async function removeAll(
  adminDatabaseUrl: string,
  redisUrl: string,
  names: { database: string; redisPrefix: string; bucket: string },
  s3Settings: TestS3,
): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const s3 = createS3Client(s3Settings);
  // Try all three even if one fails, then report every failure at once.
  const results = await Promise.allSettled([
    withAdminClient(adminDatabaseUrl, (client) => dropDatabase(client, names.database, true)),
    redis.connect().then(() => deleteRedisKeys(redis, names.redisPrefix)),
    deleteBucket(s3, names.bucket),
  ]);
  redis.disconnect();
  s3.destroy();
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
  if (failures.length) throw new Error(`Test environment cleanup failed: ${failures.join('; ')}`);
}
