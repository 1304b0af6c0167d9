import path from 'node:path';
import { applyMigrations } from '@weft/db';
import {
  ensureBucket,
  ensureDatabase,
  ensurePostgres,
  ensureRedis,
  ensureS3,
  findOrInstallEspeak,
  findOrInstallFfmpeg,
  type S3Settings,
} from '@weft/devstack';
import type { DevConfig } from './dev-config';

export interface DevServices {
  databaseUrl: string;
  /** Unset when REDIS_CLUSTER_NODES names a cluster: the gateway and worker read that from the environment. */
  redisUrl: string | undefined;
  s3: S3Settings;
  /** One line per service saying where it came from, for the banner. */
  summary: string[];
  stop(): Promise<void>;
}

/**
 * PostgreSQL, Redis and S3 for the dev stack: the configured URL, else the
 * server on the default local port, else an embedded one whose data lives in
 * `<dataDir>/<service>` and survives restarts. Then the database is migrated
 * and the bucket created. On failure, whatever was started is stopped again.
 */
export async function startDevServices(config: DevConfig, log: (line: string) => void): Promise<DevServices> {
  const started: Array<{ stop(): Promise<void> }> = [];
  const stop = async () => {
    // Reverse order of start; one failing stop must not keep the others running.
    for (const service of started.reverse()) await service.stop().catch((err: Error) => log(err.message));
  };
  const track = <T extends { stop(): Promise<void> }>(handle: T): T => {
    started.push(handle);
    return handle;
  };
  const at = (service: string) => path.join(config.dataDir, service);

  try {
    const [postgres, redis, s3] = await Promise.all([
      ensurePostgres({
        url: config.DATABASE_URL,
        port: config.WEFT_POSTGRES_PORT,
        database: 'weft',
        dataDir: at('postgres'),
        log,
      }).then(track),
      config.REDIS_CLUSTER_NODES.length > 0
        ? undefined
        : ensureRedis({ url: config.REDIS_URL, port: config.WEFT_REDIS_PORT, dataDir: at('redis'), log }).then(track),
      ensureS3({
        endpoint: config.S3_ENDPOINT,
        region: config.S3_REGION,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        port: config.WEFT_S3_PORT,
        dataDir: at('s3'),
        log,
      }).then(track),
    ]);

    // The same database as DATABASE_URL's, when that leads through a bouncer.
    const migrationUrl = config.MIGRATION_DATABASE_URL ?? postgres.url;
    await ensureDatabase(migrationUrl);
    const { applied } = await applyMigrations(migrationUrl);
    log(
      applied.length
        ? `database: applied ${applied.length} migration(s): ${applied.join(', ')}`
        : 'database: up to date',
    );
    if (await ensureBucket(s3.settings, config.S3_BUCKET)) log(`s3: created bucket ${config.S3_BUCKET}`);
    // The worker probes videos and audio with ffmpeg. Without it everything
    // else works and those assets record a processing error, so dev goes on.
    try {
      findOrInstallFfmpeg(log);
    } catch (err) {
      log(`ffmpeg: ${(err as Error).message} Video stills and media metadata are skipped until then.`);
    }
    // Only text_to_speech's local route needs it: its runs fail until then, nothing else.
    try {
      findOrInstallEspeak(log);
    } catch (err) {
      log(`espeak-ng: ${(err as Error).message} text_to_speech fails until then.`);
    }

    return {
      databaseUrl: postgres.url,
      redisUrl: redis?.url,
      s3: s3.settings,
      summary: [
        `${'PostgreSQL'.padEnd(10)} ${describe(postgres.source)}`,
        redis
          ? `${'Redis'.padEnd(10)} ${describe(redis.source)}`
          : `${'Redis'.padEnd(10)} a cluster from the environment (REDIS_CLUSTER_NODES)`,
        `${'S3'.padEnd(10)} ${describe(s3.source)} (bucket ${config.S3_BUCKET})`,
      ],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function describe(source: 'env' | 'local' | 'embedded'): string {
  if (source === 'env') return 'from the environment';
  if (source === 'local') return 'already running locally';
  return 'embedded, started by this launcher';
}
