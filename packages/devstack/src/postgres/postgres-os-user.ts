import { execFileSync } from 'node:child_process';
import { MissingDependencyError } from '../errors';

export interface OsUser {
  uid: number;
  gid: number;
}

const USER = 'postgres';

/**
 * PostgreSQL refuses to run as root. When we are root (containers, CI) the
 * server runs as the `postgres` system user, created here if missing, and its
 * data folder must belong to that user. Undefined when we are not root: the
 * server then simply runs as us.
 */
export function postgresOsUser(): OsUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const existing = lookupUser(USER);
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], {
      stdio: 'pipe',
    });
  } catch (err) {
    throw new MissingDependencyError(
      `Running as root, the embedded PostgreSQL needs a '${USER}' system user and creating it failed ` +
        `(${(err as Error).message.trim()}). Create one (useradd --system ${USER}), or set DATABASE_URL.`,
    );
  }
  const created = lookupUser(USER);
  if (!created) throw new MissingDependencyError(`Created the '${USER}' user but cannot look it up.`);
  return created;
}

function lookupUser(name: string): OsUser | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: 'pipe' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: 'pipe' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}
