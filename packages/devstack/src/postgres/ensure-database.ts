import pg from 'pg';
import { DevstackError } from '../errors';
import { databaseNameOf, quoteIdentifier, redactUrl, withDatabaseName } from './postgres-url';

const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the database named in `databaseUrl` when it does not exist yet
 * (connecting to the server's `postgres` database to do so). Safe to race:
 * losing a concurrent CREATE counts as success. Returns true if it created it.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  const client = new pg.Client({ connectionString: withDatabaseName(databaseUrl, 'postgres') });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new DevstackError(`Cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === DUPLICATE_DATABASE) return false;
      throw err;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
