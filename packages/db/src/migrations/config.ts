import path from 'node:path';
import { z } from 'zod';
import { envOptionalString, envUrl, parseEnv } from '@weft/config';

/** The repository root (this file is packages/db/src/migrations/config.ts). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
export const SCHEMA_PATH = path.join(REPO_ROOT, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma', 'migrations');
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/weft';

export const MigrationEnvSchema = z.object({
  // `?schema=name` selects the PostgreSQL schema (default `public`).
  DATABASE_URL: envUrl().default(DEFAULT_DATABASE_URL),
  /**
   * Wins over DATABASE_URL, for when that leads through a pooler that keeps no
   * session (PgBouncer in transaction mode): applying migrations holds an
   * advisory lock, and the schema engine one of its own, from start to end.
   */
  MIGRATION_DATABASE_URL: envOptionalString().pipe(z.url().optional()),
});

/** The database migrations, and the checks of the schema against them, talk to. */
export function migrationDatabaseUrl(env: Record<string, string | undefined> = process.env): string {
  const parsed = parseEnv(MigrationEnvSchema, env);
  return parsed.MIGRATION_DATABASE_URL ?? parsed.DATABASE_URL;
}
