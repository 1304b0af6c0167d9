import pg from 'pg';

/**
 * Connects and runs `SELECT 1`: a real protocol check, so a port taken by some
 * other program is told apart from a PostgreSQL server. Throws the driver's
 * error when the server is absent, not PostgreSQL, or refuses us.
 */
export async function probePostgres(databaseUrl: string, timeoutMs = 3000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  // A failed connect also emits 'error'; without a listener that would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function isPostgresReady(databaseUrl: string): Promise<boolean> {
  try {
    await probePostgres(databaseUrl, 1000);
    return true;
  } catch {
    return false;
  }
}
