import type { S3Settings } from '@weft/devstack';

// jest runs globalSetup in its parent process and test files in worker
// processes started afterwards; environment variables are the channel between
// them. These names are internal to @weft/testing.
const VARS = {
  adminDatabaseUrl: 'WEFT_TEST_ADMIN_DATABASE_URL',
  templateDatabase: 'WEFT_TEST_TEMPLATE_DATABASE',
  pgbouncerUrl: 'WEFT_TEST_PGBOUNCER_URL',
  redisUrl: 'WEFT_TEST_REDIS_URL',
  s3Endpoint: 'WEFT_TEST_S3_ENDPOINT',
  s3Region: 'WEFT_TEST_S3_REGION',
  s3AccessKeyId: 'WEFT_TEST_S3_ACCESS_KEY_ID',
  s3SecretAccessKey: 'WEFT_TEST_S3_SECRET_ACCESS_KEY',
  s3ForcePathStyle: 'WEFT_TEST_S3_FORCE_PATH_STYLE',
} as const;

/** What globalSetup found or started, as test files see it. */
export interface TestServices {
  /** The test PostgreSQL server, database `postgres`: used to create and drop per-file databases. */
  adminDatabaseUrl: string;
  /** Migrated once per jest run; every per-file database is a copy of it. */
  templateDatabase: string;
  /** The same server through PgBouncer in transaction mode (`pgbouncer=true`), database `postgres`. */
  pgbouncerUrl: string;
  redisUrl: string;
  s3: S3Settings;
}

export function publishTestServices(services: TestServices): void {
  process.env[VARS.adminDatabaseUrl] = services.adminDatabaseUrl;
  process.env[VARS.templateDatabase] = services.templateDatabase;
  process.env[VARS.pgbouncerUrl] = services.pgbouncerUrl;
  process.env[VARS.redisUrl] = services.redisUrl;
  process.env[VARS.s3Endpoint] = services.s3.endpoint;
  process.env[VARS.s3Region] = services.s3.region;
  process.env[VARS.s3AccessKeyId] = services.s3.accessKeyId;
  process.env[VARS.s3SecretAccessKey] = services.s3.secretAccessKey;
  process.env[VARS.s3ForcePathStyle] = String(services.s3.forcePathStyle);
}

export function readTestServices(env: NodeJS.ProcessEnv = process.env): TestServices {
  const get = (name: string): string => {
    const value = env[name];
    if (!value) {
      throw new Error(
        `${name} is not set: createTestEnv() needs the services that @weft/testing's jest globalSetup starts. ` +
          'Run tests with the root jest config (`npm test`).',
      );
    }
    return value;
  };
  return {
    adminDatabaseUrl: get(VARS.adminDatabaseUrl),
    templateDatabase: get(VARS.templateDatabase),
    pgbouncerUrl: get(VARS.pgbouncerUrl),
    redisUrl: get(VARS.redisUrl),
    s3: {
      endpoint: get(VARS.s3Endpoint),
      region: get(VARS.s3Region),
      accessKeyId: get(VARS.s3AccessKeyId),
      secretAccessKey: get(VARS.s3SecretAccessKey),
      forcePathStyle: get(VARS.s3ForcePathStyle) === 'true',
    },
  };
}
