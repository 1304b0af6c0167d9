export { applyMigrations, type ApplyOptions, type ApplyResult } from './apply';
export { createMigration, diffSchemaAgainstMigrations, type CreateMigrationResult, type DiffOptions } from './diff';
export { checkDrift, type DriftReport } from './drift';
export { DEFAULT_DATABASE_URL, MIGRATIONS_DIR, SCHEMA_PATH, loadMigrationEnv } from './config';
export { parseDatabaseUrl, type PgTarget } from './pg-url';
