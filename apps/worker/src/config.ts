import {
  databaseEnvShape,
  observabilityEnvShape,
  envInt,
  envOptionalString,
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
import { priceTableEnvShape, providerRouteEnvShape } from '@weft/providers';
import { webhookEnvShape } from '@weft/webhooks';
import { z } from 'zod';

// The only place in the worker that reads process.env.
export const WorkerEnv = z
  .object({
    ...databaseEnvShape,
    ...redisEnvShape,
    ...s3EnvShape,
    /** Seconds a worker may take on SIGTERM to finish or hand back its jobs. */
    WORKER_SHUTDOWN_GRACE_SECONDS: envInt(1, 3600).default(30),
    WORKER_HEARTBEAT_INTERVAL_MS: envInt(500, 60_000).default(5000),
    ...observabilityEnvShape,
    /** The worker's HTTP listener: /metrics, /healthz, /readyz (0 picks a free port, logged at start). */
    WORKER_HTTP_PORT: envInt(0, 65535).default(9464),
    WORKER_HTTP_HOST: envString().default('0.0.0.0'),
    /** Tracing (docs/operations.md): off unless an OTLP endpoint is set. */
    ...otelEnvShape('weft-worker'),
    // Run execution.
    /** Node jobs of the light queue (provider calls, bookkeeping) executed at once by this process. */
    WORKER_LIGHT_CONCURRENCY: envInt(1, 10_000).default(1000),
    /** Node jobs of the heavy queue (media processing) executed at once by this process. */
    WORKER_HEAVY_CONCURRENCY: envInt(1, 64).default(2),
    ...orgSharesEnvShape,
    /** How long a job stays locked without renewal before another worker takes it over; node jobs of a worker whose heartbeat lapsed are handed back sooner. */
    WORKER_LOCK_DURATION_MS: envInt(1000, 600_000).default(30_000),
    /** How often the reconciler looks for runs whose queue work vanished. */
    RECONCILE_INTERVAL_MS: envInt(100, 600_000).default(5_000),
    /** A run that has not moved for this long is checked by the reconciler. */
    RECONCILE_STALE_MS: envInt(100, 3_600_000).default(15_000),
    // Asset processing (thumbnails, metadata, blur hashes).
    /** Asset processing jobs run at once by this process (each decodes one image or runs one ffmpeg). */
    ASSET_PROCESSING_CONCURRENCY: envInt(1, 64).default(2),
    /** Largest image decoded, in pixels (width × height): the guard against decompression bombs. */
    ASSET_MAX_IMAGE_PIXELS: envInt(1, 1_000_000_000).default(100_000_000),
    /** Largest file read into memory: an image by asset processing, an input a node reads whole (images, fonts, subtitles). */
    ASSET_MAX_IMAGE_BYTES: envInt(1, 2 * 1024 ** 3).default(100 * 1024 * 1024),
    FFMPEG_PATH: envString().default('ffmpeg'),
    FFPROBE_PATH: envString().default('ffprobe'),
    /** espeak-ng: the local route of text_to_speech. */
    ESPEAK_PATH: envString().default('espeak-ng'),
    /** Where media nodes keep their temporary files (removed when each node ends); default: the system's. */
    NODE_WORK_DIR: envOptionalString(),
    /** ffmpeg or ffprobe running longer than this on one asset is killed. */
    FFMPEG_TIMEOUT_MS: envInt(1000, 3_600_000).default(120_000),
    // Provider adapters (docs/providers.md).
    ...providerRouteEnvShape,
    ...priceTableEnvShape,
    ...credentialsEnvShape,
    /** How often pending assets whose job went missing are looked for. */
    ASSET_SWEEP_INTERVAL_MS: envInt(1000, 3_600_000).default(60_000),
    // Webhook deliveries (docs/api.md#webhooks).
    ...webhookEnvShape,
  })
  .superRefine(requireRedisTarget);

export type WorkerConfig = z.output<typeof WorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  return withClusterPrefix(parseEnv(WorkerEnv, env));
}
