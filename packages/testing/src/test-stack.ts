import fs from 'node:fs';
import path from 'node:path';
import {
  ensurePostgres,
  ensureRedis,
  findOrInstallChromium,
  findOrInstallEspeak,
  findOrInstallFfmpeg,
  ensureS3,
  startPgbouncer,
  withDatabaseName,
  type PgbouncerHandle,
  type PostgresHandle,
  type RedisHandle,
  type S3Handle,
} from '@weft/devstack';

/**
 * The services of one test run, found as `npm run dev` finds them:
 * DATABASE_URL / REDIS_URL / S3_ENDPOINT when set, else the servers on the
 * default local ports (a system PostgreSQL, `npm run dev`'s stack). Except an
 * S3 store on its default port: the one there is a dev stack's or a
 * benchmark's (bench/ starts one on that port), gone when its owner stops, in
 * the middle of this run; an embedded store starts in a moment.
 *
 * When one has to be started, it belongs to this run alone: a free port and a
 * data folder `<WEFT_DATA_DIR>/test/run-<pid>` (default `.weft/test/...`),
 * removed at teardown. Sharing it with a concurrent jest run would break that
 * run the moment this one stopped it.
 */
export interface TestStack {
  postgres: PostgresHandle;
  /** PgBouncer in transaction mode in front of `postgres`, always this run's own. */
  pgbouncer: PgbouncerHandle;
  redis: RedisHandle;
  s3: S3Handle;
  adminDatabaseUrl: string;
  stop(): Promise<void>;
}

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

const RUN_DIR = /^run-(\d+)$/;

export function testDataDir(env: NodeJS.ProcessEnv): string {
  return path.join(path.resolve(REPO_ROOT, env.WEFT_DATA_DIR || '.weft'), 'test');
}

export async function startTestStack(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<TestStack> {
  const baseDir = testDataDir(env);
  removeDeadRunFolders(baseDir);
  const runDir = path.join(baseDir, `run-${process.pid}`);
  const started: Array<{ stop(): Promise<void> }> = [];
  const stop = async () => {
    await Promise.allSettled(started.reverse().map((service) => service.stop()));
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  const track = <T extends { stop(): Promise<void> }>(handle: T): T => {
    started.push(handle);
    return handle;
  };
  try {
    const [postgres, redis, s3] = await Promise.all([
      ensurePostgres({
        url: env.DATABASE_URL || undefined,
        dataDir: path.join(runDir, 'postgres'),
        embeddedPort: 0,
        // Test data is thrown away, so the embedded server skips fsync.
        durable: false,
        log,
      }).then(track),
      ensureRedis({
        url: env.REDIS_URL || undefined,
        dataDir: path.join(runDir, 'redis'),
        embeddedPort: 0,
        log,
      }).then(track),
      ensureS3({
        endpoint: env.S3_ENDPOINT || undefined,
        region: env.S3_REGION || undefined,
        accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
        forcePathStyle: env.S3_FORCE_PATH_STYLE ? env.S3_FORCE_PATH_STYLE === 'true' : undefined,
        reuseRunning: false,
        dataDir: path.join(runDir, 's3'),
        embeddedPort: 0,
        log,
      }).then(track),
    ]);
    const adminDatabaseUrl = withDatabaseName(postgres.url, 'postgres');
    // After redis-server's install, if there was one: two apt-get runs would contend for dpkg.
    const pgbouncer = track(await startPgbouncer({ postgresUrl: adminDatabaseUrl, log }));
    // The asset worker's and media nodes' tests run ffmpeg, text_to_speech's
    // run espeak-ng, the console's and the SDK's browser tests Chromium.
    // Installed after the services for the same reason.
    findOrInstallFfmpeg(log);
    findOrInstallEspeak(log);
    process.env.CHROMIUM_PATH ??= findOrInstallChromium(log);
    return { postgres, pgbouncer, redis, s3, adminDatabaseUrl, stop };
  } catch (err) {
    // One service failing must not leave the others running.
    await stop();
    throw err;
  }
}

/** Folders of runs whose process is gone (killed before its teardown). */
function removeDeadRunFolders(baseDir: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(baseDir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(RUN_DIR.exec(entry)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(baseDir, entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
