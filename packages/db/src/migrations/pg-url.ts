import pg from 'pg';
import { ConfigError } from '@weft/config';

// Prisma-style connection URLs: `postgresql://user@host:5432/db?schema=name`.
// `pg` ignores `?schema=`, so it is turned into a search_path here, which is
// where the schema engine's unqualified DDL lands.

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export interface PgTarget {
  /** Connection settings for `pg`, search_path set to `schema`. */
  config: pg.PoolConfig;
  /** The same connection without the search_path, for admin statements. */
  plain: pg.PoolConfig;
  database: string;
  schema: string;
}

export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid PostgreSQL schema name: ${JSON.stringify(schema)}`);
  return schema;
}

/** `schema` overrides the URL's `?schema=`; the default is `public`. */
export function parseDatabaseUrl(databaseUrl: string, schema?: string): PgTarget {
  const url = new URL(databaseUrl);
  if (url.searchParams.get('pgbouncer') === 'true') {
    throw new ConfigError(
      `${redacted(url)} leads through PgBouncer (pgbouncer=true), which keeps no session between transactions; ` +
        'migrations hold advisory locks for as long as they run. Set MIGRATION_DATABASE_URL to the PostgreSQL server itself.',
    );
  }
  const chosen = assertSchemaName(schema ?? url.searchParams.get('schema') ?? 'public');
  url.searchParams.delete('schema');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new Error('The database URL names no database');
  const plain: pg.PoolConfig = { connectionString: url.toString() };
  return { config: { ...plain, options: `-c search_path=${chosen}` }, plain, database, schema: chosen };
}

function redacted(url: URL): string {
  const copy = new URL(url);
  if (copy.password) copy.password = '***';
  return copy.toString();
}

/** The same server and credentials, another database. */
export function withDatabase(config: pg.PoolConfig, database: string): pg.PoolConfig {
  const url = new URL(String(config.connectionString));
  url.pathname = `/${encodeURIComponent(database)}`;
  return { ...config, connectionString: url.toString() };
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function withClient<T>(config: pg.ClientConfig, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates the URL's database when it does not exist yet, as `prisma migrate deploy` does. */
export async function ensureDatabase(target: PgTarget): Promise<void> {
  try {
    await withClient(target.plain, async () => undefined);
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err; // invalid_catalog_name
  }
  await withClient(withDatabase(target.plain, 'postgres'), async (c) => {
    try {
      await c.query(`CREATE DATABASE ${quoteIdent(target.database)}`);
    } catch (err) {
      if ((err as { code?: string }).code !== '42P04') throw err; // created meanwhile
    }
  });
}
