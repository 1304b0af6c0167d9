// Finds or starts the three services Weft needs (PostgreSQL, Redis, S3) for
// the dev launcher and the test suite. Reads no environment variables itself:
// callers pass what the user configured.
export {
  ensurePostgres,
  DEFAULT_POSTGRES_PORT,
  type PostgresHandle,
  type EnsurePostgresOptions,
} from './postgres/ensure-postgres';
export { ensureDatabase } from './postgres/ensure-database';
export { probePostgres } from './postgres/probe-postgres';
export { databaseNameOf, quoteIdentifier, redactUrl, withDatabaseName } from './postgres/postgres-url';
export { ensureRedis, DEFAULT_REDIS_PORT, type RedisHandle, type EnsureRedisOptions } from './redis/ensure-redis';
export { probeRedis } from './redis/probe-redis';
export { ensureS3, DEFAULT_S3_PORT, type S3Handle, type EnsureS3Options } from './s3/ensure-s3';
export { ensureBucket } from './s3/ensure-bucket';
export { createS3Client, S3RVER_CREDENTIALS, DEFAULT_S3_REGION, type S3Settings } from './s3/s3-settings';
export { assertPortFree, freePort, isPortListening } from './tcp';
export { DevstackError, MissingDependencyError, PortInUseError, PortUnavailableError } from './errors';
export type { EnsureServiceOptions, ServiceHandle, ServiceSource } from './service-handle';
export { findOrInstallFfmpeg, type FfmpegPaths } from './ffmpeg/find-ffmpeg';
export { findOrInstallEspeak } from './espeak/find-espeak';
export { findOrInstallChromium } from './chromium/find-chromium';
export { startPgbouncer, type PgbouncerHandle, type PgbouncerOptions } from './pgbouncer/start-pgbouncer';
