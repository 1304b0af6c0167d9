// First import: starts tracing, when configured, before anything loads `http`.
import { startupConfig, tracing } from './tracing';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '@weft/config';
import { createDb, pingDatabase } from '@weft/db';
import { readiness } from '@weft/health';
import { credentialStoreFor, parseKeyring } from '@weft/credentials';
import { createNodeRoutes } from '@weft/providers';
import {
  createWorkerConnection,
  queueShardCount,
  redisTargetOf,
  startHeartbeat,
  watchEvictionPolicy,
  workerConnectionName,
} from '@weft/queue';
import { createStorage, storageConfigFromEnv } from '@weft/storage';
import { logContextOptions } from '@weft/telemetry';
import pino from 'pino';
import { parseRetrySchedule } from '@weft/webhooks';
import { startAssetWorker, startNodeWorkers, startWebhookWorker } from './compose';
import { ListenError, startOpsServer } from './http/ops-server';
import { createWorkerMetrics } from './http/worker-metrics';

// Composition root of a worker process: connects, proves its dependencies,
// starts the processors and announces itself with a heartbeat that operators
// and the gateway can see. On SIGTERM it stops taking jobs and finishes the
// ones in flight within WORKER_SHUTDOWN_GRACE_SECONDS; whatever is still
// running then is handed back to the queue by BullMQ's stalled-job check.
async function main() {
  const config = startupConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'worker' }, ...logContextOptions });
  const workerId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const db = createDb({
    databaseUrl: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
  });
  // Named, so that other workers see from CLIENT LIST when this process is gone (@weft/queue heartbeat.ts).
  const redisTarget = redisTargetOf(config);
  const redis = createWorkerConnection(redisTarget, {
    connectionName: workerConnectionName(config.REDIS_PREFIX, workerId),
  });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const storage = createStorage(storageConfigFromEnv(config));
  const metrics = createWorkerMetrics();
  // Listening before the dependencies are proven: liveness answers while the
  // worker starts, and readiness says what it is waiting for.
  let processing = false;
  const ops = await startOpsServer({
    host: config.WORKER_HTTP_HOST,
    port: config.WORKER_HTTP_PORT,
    metrics: metrics.registry,
    metricsToken: config.METRICS_TOKEN,
    logger,
    readiness: () =>
      readiness({
        pingDatabase: () => pingDatabase(db),
        redis,
        pingStorage: () => storage.ping(),
        local: { processors: () => processing },
      }),
  }).catch((err: unknown) => {
    // Like the gateway's PORT: one line naming the setting to change, no stack trace.
    if (!(err instanceof ListenError)) throw err;
    logger.fatal(err.message);
    process.exit(1);
  });

  await pingDatabase(db);
  await redis.ping();
  watchEvictionPolicy(redis, logger);
  const heartbeat = await startHeartbeat({
    redis,
    prefix: config.REDIS_PREFIX,
    workerId,
    intervalMs: config.WORKER_HEARTBEAT_INTERVAL_MS,
    shards: queueShardCount(config),
  });
  const credentials = credentialStoreFor(db.pool, config.CREDENTIALS_KEY);
  const nodeWorkers = await startNodeWorkers({
    db,
    storage,
    redis: redisTarget,
    redisPrefix: config.REDIS_PREFIX,
    queueShards: queueShardCount(config),
    logger,
    lightConcurrency: config.WORKER_LIGHT_CONCURRENCY,
    heavyConcurrency: config.WORKER_HEAVY_CONCURRENCY,
    lockDurationMs: config.WORKER_LOCK_DURATION_MS,
    heartbeat: { workerId, intervalMs: config.WORKER_HEARTBEAT_INTERVAL_MS },
    outboundAllowList: config.OUTBOUND_ALLOWED_HOSTS,
    maxImagePixels: config.ASSET_MAX_IMAGE_PIXELS,
    maxReadBytes: config.ASSET_MAX_IMAGE_BYTES,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    reconcileStaleMs: config.RECONCILE_STALE_MS,
    orgMaxExecutingNodes: config.ORG_MAX_EXECUTING_NODES,
    orgMaxMediaNodes: config.ORG_MAX_MEDIA_NODES,
    ...(config.NODE_WORK_DIR ? { nodeWorkRoot: config.NODE_WORK_DIR } : {}),
    hooks: metrics.hooks,
    mediaTools: { ffmpeg: config.FFMPEG_PATH, ffprobe: config.FFPROBE_PATH, espeak: config.ESPEAK_PATH },
    nodeRoutes: createNodeRoutes(config, {
      outboundAllowList: config.OUTBOUND_ALLOWED_HOSTS,
      organizations: credentials,
    }),
  });
  const assetWorker = await startAssetWorker({
    db,
    storage,
    redis: redisTarget,
    redisPrefix: config.REDIS_PREFIX,
    logger,
    concurrency: config.ASSET_PROCESSING_CONCURRENCY,
    maxPixels: config.ASSET_MAX_IMAGE_PIXELS,
    maxImageBytes: config.ASSET_MAX_IMAGE_BYTES,
    ffmpeg: { ffmpeg: config.FFMPEG_PATH, ffprobe: config.FFPROBE_PATH, timeoutMs: config.FFMPEG_TIMEOUT_MS },
    sweepIntervalMs: config.ASSET_SWEEP_INTERVAL_MS,
    sweepStaleMs: config.ASSET_SWEEP_INTERVAL_MS,
  });
  const webhookWorker = startWebhookWorker({
    db,
    redis: redisTarget,
    redisPrefix: config.REDIS_PREFIX,
    logger,
    keyring: config.CREDENTIALS_KEY ? parseKeyring(config.CREDENTIALS_KEY) : undefined,
    outboundAllowList: config.OUTBOUND_ALLOWED_HOSTS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    lockDurationMs: config.WORKER_LOCK_DURATION_MS,
    retrySchedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE),
    sweepIntervalMs: config.WEBHOOK_SWEEP_INTERVAL_MS,
  });
  processing = true;
  logger.info({ workerId }, 'worker started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    processing = false;
    logger.info({ signal }, 'worker shutting down');
    const force = setTimeout(() => process.exit(1), config.WORKER_SHUTDOWN_GRACE_SECONDS * 1000);
    force.unref();
    await Promise.all([nodeWorkers.close(), assetWorker.close(), webhookWorker.close()]);
    await heartbeat.stop();
    storage.close();
    await db.close();
    redis.disconnect();
    await ops.close();
    await tracing.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
