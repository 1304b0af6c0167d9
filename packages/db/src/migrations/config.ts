import path from 'node:path';
import { z } from 'zod';
import { envUrl, parseEnv } from '@weft/config';

/** The repository root (this file is packages/db/src/migrations/config.ts). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
export const SCHEMA_PATH = path.join(REPO_ROOT, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma', 'migrations');
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/weft';

export const MigrationEnvSchema = z.object({
  // `?schema=name` selects the PostgreSQL schema (default `public`).
  DATABASE_URL: envUrl().default(DEFAULT_DATABASE_URL),
});

export type MigrationEnv = z.output<typeof MigrationEnvSchema>;

export function loadMigrationEnv(env: Record<string, string | undefined> = process.env): MigrationEnv {
  return parseEnv(MigrationEnvSchema, env);
}
