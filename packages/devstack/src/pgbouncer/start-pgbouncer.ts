import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aptInstall, canInstallWithApt, findOnPath } from '../apt';
import { MissingDependencyError } from '../errors';
import { postgresOsUser } from '../postgres/postgres-os-user';
import { isPostgresReady } from '../postgres/probe-postgres';
import { startProcess, waitUntilReady } from '../process/managed-process';
import { LOCALHOST } from '../service-handle';
import { resolvePort } from '../tcp';

const HOW_TO_INSTALL =
  'Install PgBouncer (Debian/Ubuntu: `sudo apt-get install pgbouncer`; macOS: `brew install pgbouncer`; ' +
  'Fedora: `sudo dnf install pgbouncer`).';

const START_TIMEOUT_MS = 30_000;

export interface PgbouncerOptions {
  /** The PostgreSQL server to pool for: its host, port and credentials (its database is not used). */
  postgresUrl: string;
  /** 0 (the default) picks a free one. */
  port?: number;
  log: (line: string) => void;
}

export interface PgbouncerHandle {
  /**
   * `postgresUrl` through the bouncer: same credentials and database, this
   * host and port, and `pgbouncer=true` (what tells Weft it is on one). Any
   * database of the server can be reached by changing the path.
   */
  url: string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of one PostgreSQL server, as it
 * would stand in production (Debian's 1.18: no prepared statements, no
 * session state kept between transactions). Every database of the server is
 * reachable through it (the `*` entry), with the user and password of
 * `postgresUrl`. Its configuration, user list and log live in a temporary
 * folder that stop() removes.
 */
export async function startPgbouncer(options: PgbouncerOptions): Promise<PgbouncerHandle> {
  const pgbouncer = findOrInstallPgbouncer(options.log);
  const server = new URL(options.postgresUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const password = decodeURIComponent(server.password);
  const port = await resolvePort(options.port ?? 0);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-pgbouncer-'));
  const iniFile = path.join(dir, 'pgbouncer.ini');
  const userlist = path.join(dir, 'userlist.txt');
  // With auth_type trust PgBouncer asks clients for nothing, but a user must
  // be listed, and the password listed is the one it gives the server.
  fs.writeFileSync(userlist, `${quoted(user)} ${quoted(password)}\n`, { mode: 0o600 });
  fs.writeFileSync(
    iniFile,
    [
      '[databases]',
      `* = host=${server.hostname.replace(/^\[|\]$/g, '')} port=${server.port || 5432}`,
      '',
      '[pgbouncer]',
      `listen_addr = ${LOCALHOST}`,
      `listen_port = ${port}`,
      // No Unix socket: only the TCP port above, which is ours alone.
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      'max_client_conn = 2000',
      'default_pool_size = 20',
      // pg sends none of PgBouncer's unsupported startup parameters, but other clients (psql, JDBC) send this one.
      'ignore_startup_parameters = extra_float_digits',
      'pidfile =',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root; as root it runs as the user embedded PostgreSQL runs as.
  const osUser = postgresOsUser();
  if (osUser) {
    for (const file of [dir, iniFile, userlist]) fs.chownSync(file, osUser.uid, osUser.gid);
  }

  const proc = startProcess({
    name: 'pgbouncer',
    command: pgbouncer,
    args: [iniFile],
    logFile: path.join(dir, 'pgbouncer.log'),
    cwd: dir,
    uid: osUser?.uid,
    gid: osUser?.gid,
    // Immediate shutdown in 1.18: by then its clients have closed their connections.
    stopSignal: 'SIGTERM',
  });
  const through = new URL(options.postgresUrl);
  through.hostname = LOCALHOST;
  through.port = String(port);
  through.searchParams.set('pgbouncer', 'true');
  const url = through.toString();
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    await waitUntilReady(proc, () => isPostgresReady(url), START_TIMEOUT_MS);
  } catch (err) {
    remove();
    throw err;
  }
  options.log(`pgbouncer: started in transaction mode on ${LOCALHOST}:${port}, in front of ${server.host}`);
  return {
    url,
    async stop() {
      await proc.stop();
      remove();
      options.log('pgbouncer: stopped');
    },
  };
}

function quoted(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

/** The system's pgbouncer, installed with apt-get on Debian/Ubuntu as root. */
function findOrInstallPgbouncer(log: (line: string) => void): string {
  const existing = findPgbouncer();
  if (existing) return existing;
  if (!canInstallWithApt()) throw new MissingDependencyError(`pgbouncer was not found on PATH. ${HOW_TO_INSTALL}`);
  aptInstall('pgbouncer', log, HOW_TO_INSTALL);
  const installed = findPgbouncer();
  if (!installed)
    throw new MissingDependencyError(`Installed pgbouncer, but it is still not on PATH. ${HOW_TO_INSTALL}`);
  return installed;
}

function findPgbouncer(): string | undefined {
  // Debian installs it in /usr/sbin, which a user's PATH may lack.
  return findOnPath('pgbouncer') ?? ['/usr/sbin/pgbouncer'].find((p) => fs.existsSync(p));
}
