import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MIGRATIONS_DIR, SCHEMA_PATH, migrationDatabaseUrl } from './config';
import { readMigrationList, writeMigration } from './migrations-dir';
import { ensureDatabase, parseDatabaseUrl } from './pg-url';
import { NO_FILTER, openSchemaEngine } from './wasm-engine';

export interface DiffOptions {
  /** A PostgreSQL server to host the temporary shadow database; default MIGRATION_DATABASE_URL, else DATABASE_URL. */
  databaseUrl?: string;
  schemaPath?: string;
  migrationsDir?: string;
}

/**
 * The SQL that takes a database built from the migrations folder to the state
 * described by schema.prisma (`prisma migrate diff --from-migrations --to-schema
 * --script`). The migrations are replayed in a throw-away shadow database.
 * Returns null when they already agree.
 */
export async function diffSchemaAgainstMigrations(options: DiffOptions = {}): Promise<string | null> {
  const schemaPath = options.schemaPath ?? SCHEMA_PATH;
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  const target = parseDatabaseUrl(options.databaseUrl ?? migrationDatabaseUrl());
  const [datamodel, migrationsList] = await Promise.all([
    readFile(schemaPath, 'utf8'),
    readMigrationList(migrationsDir),
  ]);
  await ensureDatabase(target);
  const { engine, close } = await openSchemaEngine(target);
  try {
    const result = await engine.diff({
      from: { tag: 'migrations', ...migrationsList },
      to: { tag: 'schemaDatamodel', files: [{ path: path.basename(schemaPath), content: datamodel }] },
      script: true,
      exitCode: true, // 2 when there is a difference
      filters: NO_FILTER,
    });
    return result.exitCode === 2 ? (result.stdout ?? '') : null;
  } finally {
    await close();
  }
}

export interface CreateMigrationResult {
  /** The new folder's name, e.g. `20250131235959_add_runs`; null when nothing changed. */
  migrationName: string | null;
  sql: string | null;
}

/**
 * `prisma migrate dev --create-only --name <name>` without a database to migrate:
 * writes `<migrationsDir>/<timestamp>_<name>/migration.sql` with what schema.prisma
 * adds to the migrations, and keeps `migration_lock.toml`.
 */
export async function createMigration(name: string, options: DiffOptions = {}): Promise<CreateMigrationResult> {
  const sql = await diffSchemaAgainstMigrations(options);
  if (sql === null) return { migrationName: null, sql: null };
  const migrationName = await writeMigration(options.migrationsDir ?? MIGRATIONS_DIR, name, sql);
  return { migrationName, sql };
}
