import {
  databaseEnvShape,
  observabilityEnvShape,
  envBool,
  envInt,
  envOptionalString,
  envPort,
  envString,
  otelEnvShape,
  parseEnv,
  orgSharesEnvShape,
  redisEnvShape,
  requireRedisTarget,
  withClusterPrefix,
  s3EnvShape,
} from '@weft/config';
import { credentialsEnvShape } from '@weft/credentials';
import { providerRouteEnvShape } from '@weft/providers';
import { z } from 'zod';
import { DEFAULT_CONSOLE_DIR } from './console/console-dir';

// The only place in the gateway that reads process.env.
export const GatewayEnv = z
  .object({
    PORT: envPort().default(8080),
    HOST: envString().default('0.0.0.0'),
    ...databaseEnvShape,
    ...redisEnvShape,
    /**
     * How long a Redis command waits for its answer: past it, the command fails
     * as Redis being unavailable (a 503, or the fallback where there is one)
     * rather than hanging on a Redis that stopped answering without closing.
     */
    REDIS_COMMAND_TIMEOUT_MS: envInt(100, 600_000).default(5_000),
    ...s3EnvShape,
    /** Enables /admin (and the queue dashboard at /admin/queues) when set. */
    ADMIN_TOKEN: envOptionalString().pipe(z.string().min(16).optional()),
    /** A run in progress, not awaiting review, whose row has not changed for this long counts in weft_runs_stalled. Keep it above the longest node timeout. */
    RUN_STALLED_AFTER_SECONDS: envInt(10, 7 * 24 * 3600).default(900),
    ...orgSharesEnvShape,
    /** How long /metrics reuses the cluster-wide gauges (queue depths, run counts, workers) before reading PostgreSQL and Redis again. */
    METRICS_CLUSTER_CACHE_MS: envInt(0, 600_000).default(5000),
    /** Enables `Authorization: Bearer <JWT>` (HS256) when set. */
    JWT_SECRET: envOptionalString().pipe(z.string().min(32).optional()),
    RATE_LIMIT_DEFAULT_PER_MINUTE: envInt(1, 10_000_000).default(2000),
    RATE_LIMIT_CREATE_PER_MINUTE: envInt(1, 10_000_000).default(600),
    /** POST /assets/upload per minute per API key: a budget of its own, apart from run creation (docs/api.md#rate-limits). */
    RATE_LIMIT_UPLOAD_PER_MINUTE: envInt(1, 10_000_000).default(600),
    /** How long a verified API key is trusted without asking the database again. Revocation is pushed through Redis, so this only bounds staleness if that message is lost. */
    API_KEY_CACHE_TTL_MS: envInt(0, 3_600_000).default(60_000),
    /** How long an agent read is served from memory. Changes are pushed to every instance through Redis; this bounds staleness only if that message is lost. */
    CATALOG_CACHE_TTL_MS: envInt(0, 3_600_000).default(60_000),
    /** How long what a download needs of an asset is served from memory. Deletes are pushed to every instance through Redis; this bounds staleness only if that message is lost. 0 reads the row for every download. */
    ASSET_CACHE_TTL_MS: envInt(0, 3_600_000).default(60_000),
    /** How often an idle run event stream (GET /runs/{id}/events) gets a keep-alive comment, and its run is checked against PostgreSQL in case a change message was lost. A stream whose client took nothing for two intervals is closed. */
    EVENTS_KEEPALIVE_MS: envInt(100, 300_000).default(15_000),
    /** Ended runs kept in memory per instance for GET /runs/{id} (they never change again); 0 turns it off. */
    ENDED_RUN_CACHE_SIZE: envInt(0, 10_000_000).default(50_000),
    BODY_LIMIT_BYTES: envInt(1024, 100 * 1024 * 1024).default(1024 * 1024),
    /** How long an idle keep-alive connection stays open: longer than the idle timeout of the load balancer in front (60 s on AWS's ALB). At most 290 s (the next request's headers get a second more). */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: envInt(1000, 290_000).default(65_000),
    /** A request body that brings no byte for this long while the gateway reads it is given up (408); time the gateway holds a body back does not count (http/body-pace.ts). */
    HTTP_BODY_STALL_MS: envInt(1000, 3_600_000).default(60_000),
    /** Past its first HTTP_BODY_STALL_MS, a body must average at least this (32 KiB/s, 256 kbit/s) over the time the gateway reads it, or 408: a trickling client cannot hold an upload's memory for hours. */
    HTTP_BODY_MIN_BYTES_PER_SECOND: envInt(1, 1024 ** 3).default(32 * 1024),
    /** How far (in %) V8 lets the old generation grow past what a full collection kept before the next one; 0 leaves it to V8's heuristics, which under load could trigger one every 150–200 ms (ADR 0018). */
    GC_HEAP_GROWING_PERCENT: envInt(0, 400).default(60),
    TRUST_PROXY: envBool().default(false),
    ...observabilityEnvShape,
    /** Tracing (docs/operations.md): off unless an OTLP endpoint is set. */
    ...otelEnvShape('weft-gateway'),
    /** Largest accepted upload; above it 413 and the multipart upload is aborted. */
    ASSET_MAX_UPLOAD_BYTES: envInt(1, 50 * 1024 ** 3).default(100 * 1024 * 1024),
    /**
     * Memory this instance's uploads may hold at once (assets/upload-memory.ts);
     * uploads beyond it wait their turn. A quarter of the gateway pod's 512 MiB.
     */
    ASSET_UPLOAD_MEMORY_BYTES: envInt(8 * 1024 * 1024, 64 * 1024 ** 3).default(128 * 1024 * 1024),
    /** Lifetime of presigned asset URLs (SigV4 allows up to 7 days). */
    ASSET_URL_TTL_SECONDS: envInt(60, 7 * 24 * 3600).default(3600),
    /** A CDN in front of the bucket: asset URLs become `<base>/<key>` instead of presigned S3 URLs. */
    ASSET_PUBLIC_BASE_URL: envOptionalString().pipe(z.url().optional()),
    /** A download whose client takes no byte for this long (a paused player, a stalled connection) is given up; the client resumes with a Range request. Waiting on the store does not count. */
    ASSET_DOWNLOAD_STALL_MS: envInt(1000, 3_600_000).default(120_000),
    /** Largest image (width × height) the experimental SVG conversion decodes. */
    ASSET_MAX_IMAGE_PIXELS: envInt(1, 1_000_000_000).default(100_000_000),
    /** The web console's build (index.html, assets/), served at /console/; a relative path is from the working directory. */
    CONSOLE_DIR: envString().default(DEFAULT_CONSOLE_DIR),
    /** Provider routes, shown by GET /node-types (the key itself never is): the same values as the workers'. */
    ...providerRouteEnvShape,
    ...credentialsEnvShape,
    /** Fault injection for durability tests: exit right after a run is committed, before it is enqueued. Never set it in production. */
    RUN_FAULT_EXIT_AFTER_COMMIT: envBool().default(false),
  })
  .superRefine(requireRedisTarget);

export type GatewayConfig = z.output<typeof GatewayEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return withClusterPrefix(parseEnv(GatewayEnv, env));
}
