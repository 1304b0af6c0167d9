import { LOCALHOST } from '../service-handle';

// The local servers we probe or start accept user `postgres`. The password is
// there for servers that ask for one (ours trusts loopback connections); it is
// the conventional development default, not a secret.
export const LOCAL_POSTGRES_USER = 'postgres';
export const LOCAL_POSTGRES_PASSWORD = 'postgres';

export function localPostgresUrl(port: number, database: string): string {
  return `postgresql://${LOCAL_POSTGRES_USER}:${LOCAL_POSTGRES_PASSWORD}@${LOCALHOST}:${port}/${encodeURIComponent(database)}`;
}

/** The same server, credentials and parameters, another database. */
export function withDatabaseName(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

export function databaseNameOf(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`The database URL ${redactUrl(databaseUrl)} names no database`);
  return name;
}

/** For messages: never print a password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
