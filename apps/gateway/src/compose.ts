import { createDb } from '@weft/db';
import { createEngine, createRunQueues } from '@weft/engine';
import { tracePool } from '@weft/media';
import { credentialStoreFor, parseKeyring } from '@weft/credentials';
import { createNodeRoutes } from '@weft/providers';
import {
  createAssetJobProducer,
  createProducerConnection,
  createWebhookJobProducer,
  createWorkerConnection,
  openObservedQueues,
  queueShardCount,
  redisTargetOf,
} from '@weft/queue';
import { createRateLimiter } from '@weft/rate-limit';
import { createStorage, createUrlSigner, storageConfigFromEnv } from '@weft/storage';
import type { Logger } from 'pino';
import { createAssetFiles } from './assets/asset-files';
import { createUploadMemory } from './assets/upload-memory';
import { createAuthenticator, type GatewayAuthenticator } from './auth/authenticator';
import { createAgentCatalog } from './catalog/agent-catalog';
import type { GatewayConfig } from './config';
import type { GatewayDeps } from './deps';
import { EndedRunCache } from './runs/ended-run-cache';
import { RunEventHub } from './runs/events/run-event-hub';
import { createGatewayMetrics } from './metrics/gateway-metrics';

export interface GatewayRuntime {
  deps: GatewayDeps;
  authenticator: GatewayAuthenticator;
  /** Closes every client it opened. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * Queue Redis commands while connecting. Off in production: a request must
   * fail fast (and the limiter fall back) rather than wait for Redis.
   */
  redisOfflineQueue?: boolean;
}

/** Builds every client the gateway needs from its parsed config: used by main.ts and by tests. */
export function createGatewayRuntime(
  config: GatewayConfig,
  logger: Logger,
  { redisOfflineQueue = false }: RuntimeOptions = {},
): GatewayRuntime {
  const db = createDb({
    databaseUrl: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
  });
  const redisTarget = redisTargetOf(config);
  const redis = createProducerConnection(redisTarget, {
    enableOfflineQueue: redisOfflineQueue,
    commandTimeout: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const storage = createStorage(storageConfigFromEnv(config));
  const observed = openObservedQueues(redis, config.REDIS_PREFIX, queueShardCount(config));
  const uploadMemory = createUploadMemory(config.ASSET_UPLOAD_MEMORY_BYTES);
  const metrics = createGatewayMetrics({
    admission: {
      uploadMemory: () => ({ reservedBytes: uploadMemory.inUse, waiting: uploadMemory.waiting }),
      svgTraces: () => ({ running: tracePool.running, waiting: tracePool.queued }),
    },
    pool: db.pool,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    queueShards: queueShardCount(config),
    queues: observed.queues,
    stalledAfterMs: config.RUN_STALLED_AFTER_SECONDS * 1000,
    cacheMs: config.METRICS_CLUSTER_CACHE_MS,
    logger,
  });
  const authenticator = createAuthenticator({ db, redis, config, logger });
  const agents = createAgentCatalog({
    db,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    ttlMs: config.CATALOG_CACHE_TTL_MS,
    logger,
  });
  const assetFiles = createAssetFiles({
    db,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    ttlMs: config.ASSET_CACHE_TTL_MS,
    logger,
  });
  const rateLimiter = createRateLimiter({
    redis,
    keyPrefix: `${config.REDIS_PREFIX}:rl`,
    limits: {
      default: config.RATE_LIMIT_DEFAULT_PER_MINUTE,
      create: config.RATE_LIMIT_CREATE_PER_MINUTE,
      upload: config.RATE_LIMIT_UPLOAD_PER_MINUTE,
    },
    logger,
    onRejected: (bucket) => metrics.http.rateLimitRejected(bucket),
  });
  const assetJobs = createAssetJobProducer(redis, config.REDIS_PREFIX, logger);
  const assetUrls = createUrlSigner(storage, {
    ttlSeconds: config.ASSET_URL_TTL_SECONDS,
    ...(config.ASSET_PUBLIC_BASE_URL ? { publicBaseUrl: config.ASSET_PUBLIC_BASE_URL } : {}),
  });
  const runQueues = createRunQueues(
    redis,
    config.REDIS_PREFIX,
    {
      light: { maxPerOrg: config.ORG_MAX_EXECUTING_NODES },
      heavy: { maxPerOrg: config.ORG_MAX_MEDIA_NODES },
    },
    queueShardCount(config),
  );
  const webhookJobs = createWebhookJobProducer(redis, config.REDIS_PREFIX, logger);
  const engine = createEngine({
    db,
    queues: runQueues,
    publisher: redis,
    redisPrefix: config.REDIS_PREFIX,
    logger,
    agents,
    hooks: metrics.runs,
    webhookJobs,
    // Durability tests only: the process dies between a run's commit and its enqueue.
    ...(config.RUN_FAULT_EXIT_AFTER_COMMIT ? { afterCreateCommit: () => process.exit(86) } : {}),
  });
  // Subscribed connections can send nothing else: run changes get a connection of their own.
  const subscriber = createWorkerConnection(redisTarget);
  subscriber.on('error', (err) => logger.warn({ err: err.message }, 'redis subscriber connection error'));
  const runEvents = new RunEventHub({
    pool: db.pool,
    versions: engine.versions,
    logger,
    subscriber,
    redisPrefix: config.REDIS_PREFIX,
    keepAliveMs: config.EVENTS_KEEPALIVE_MS,
  });
  runEvents.start().catch((err: unknown) => logger.error({ err }, 'run events: cannot subscribe to run changes'));
  const credentials = credentialStoreFor(db.pool, config.CREDENTIALS_KEY);
  const deps: GatewayDeps = {
    config,
    db,
    redis,
    logger,
    authenticator,
    rateLimiter,
    agents,
    pingStorage: () => storage.ping(),
    storage,
    assetFiles,
    assetUrls,
    assetJobs,
    uploadMemory,
    engine,
    endedRuns: new EndedRunCache(config.ENDED_RUN_CACHE_SIZE),
    runEvents,
    metrics,
    observedQueues: observed.queues,
    nodeRoutes: createNodeRoutes(config, {
      outboundAllowList: config.OUTBOUND_ALLOWED_HOSTS,
      organizations: credentials,
    }),
    credentials,
    webhookKeyring: config.CREDENTIALS_KEY ? parseKeyring(config.CREDENTIALS_KEY) : undefined,
    webhookJobs,
  };
  return {
    deps,
    authenticator,
    async close() {
      await runEvents.close();
      subscriber.disconnect();
      await authenticator.close();
      await agents.close();
      await assetFiles.close();
      await assetJobs.close();
      await runQueues.close();
      await webhookJobs.close();
      await observed.close();
      await db.close();
      redis.disconnect();
      storage.close();
    },
  };
}
