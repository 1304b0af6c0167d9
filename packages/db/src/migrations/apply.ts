import { MIGRATIONS_DIR } from './config';
import { readMigrationList } from './migrations-dir';
import { ensureDatabase, parseDatabaseUrl, withClient } from './pg-url';
import { NO_FILTER, loadSchemaEngineModule, openSchemaEngine } from './wasm-engine';

export interface ApplyOptions {
  /** PostgreSQL schema to migrate; overrides the URL's `?schema=` (default `public`). */
  schema?: string;
  migrationsDir?: string;
  /** How long to wait for another process applying migrations to the same database. */
  lockTimeoutMs?: number;
}

export interface ApplyResult {
  /** Migrations applied by this call, oldest first; empty when already up to date. */
  applied: string[];
  schema: string;
}

/**
 * Our own lock, taken before the engine's. The engine locks
 * pg_advisory_lock(72707369) itself, but gives up after 10 s and keeps the
 * lock until its connection closes; serialising callers here first means the
 * engine always finds its lock free. The key is per database, like the engine's.
 */
const APPLY_LOCK_KEY = 0x77656674; // "weft"

/**
 * `prisma migrate deploy`: applies the migrations folder's pending migrations
 * and records them in `<schema>._prisma_migrations`. Creates the database and
 * the schema when missing. Safe to run repeatedly and from concurrent processes.
 */
export async function applyMigrations(databaseUrl: string, options: ApplyOptions = {}): Promise<ApplyResult> {
  const target = parseDatabaseUrl(databaseUrl, options.schema);
  const migrationsList = await readMigrationList(options.migrationsDir ?? MIGRATIONS_DIR);
  await Promise.all([ensureDatabase(target), loadSchemaEngineModule()]);
  return withClient(target.plain, async (lock) => {
    await lock.query(`SET lock_timeout = ${Math.max(1, Math.floor(options.lockTimeoutMs ?? 120_000))}`);
    await lock.query('SELECT pg_advisory_lock($1)', [APPLY_LOCK_KEY]);
    try {
      const { engine, close } = await openSchemaEngine(target);
      try {
        const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
        return { applied: appliedMigrationNames, schema: target.schema };
      } finally {
        await close();
      }
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [APPLY_LOCK_KEY]).catch(() => undefined);
    }
  });
}
