import { z } from 'zod';

// Building blocks for each process's config.ts. This package reads nothing
// itself: every process parses its environment once, at start-up, and a bad
// value stops it with a message naming the variable.

export class ConfigError extends Error {}

export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    return `  ${name}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** Treats an empty string like an unset variable, as shells and compose files produce both. */
const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);

export const envString = () => z.preprocess(unsetIfEmpty, z.string());
export const envOptionalString = () => z.preprocess(unsetIfEmpty, z.string().optional());
export const envUrl = () => z.preprocess(unsetIfEmpty, z.url());
export const envInt = (min: number, max: number) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max));
export const envPort = () => envInt(1, 65535);
export const envBool = () =>
  z.preprocess(
    unsetIfEmpty,
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
  );
export const envLogLevel = () =>
  z.preprocess(unsetIfEmpty, z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']));
/** A comma-separated list; blank entries dropped. */
export const envList = () =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : (v ?? []),
    z.array(z.string()),
  );

/**
 * The PostgreSQL settings of the gateway and the worker. The two timeouts
 * bound what a database that stops answering without closing its
 * connections (a partition, a failover behind a moved address) costs: a
 * request then fails with 503 instead of hanging until TCP gives up, minutes later.
 */
export const databaseEnvShape = {
  DATABASE_URL: envString().pipe(z.url()),
  DATABASE_POOL_SIZE: envInt(1, 200).default(10),
  /** How long a statement waits for a connection: a free one of the pool, or a new one being opened. */
  DATABASE_CONNECT_TIMEOUT_MS: envInt(100, 600_000).default(10_000),
  /** How long a statement waits for the database's answer once sent. */
  DATABASE_QUERY_TIMEOUT_MS: envInt(100, 3_600_000).default(30_000),
};

/** The S3 settings shared by every process that touches storage. */
export const s3EnvShape = {
  S3_ENDPOINT: envOptionalString().pipe(z.url().optional()),
  S3_PUBLIC_ENDPOINT: envOptionalString().pipe(z.url().optional()),
  S3_REGION: envString().default('us-east-1'),
  S3_BUCKET: envString().default('weft'),
  S3_ACCESS_KEY_ID: envString().default('S3RVER'),
  S3_SECRET_ACCESS_KEY: envString().default('S3RVER'),
  S3_FORCE_PATH_STYLE: envBool().default(true),
  /** How long a request to the store may go without progress before it fails as the store being unavailable. */
  S3_IDLE_TIMEOUT_MS: envInt(100, 600_000).default(30_000),
};

/** OpenTelemetry trace samplers by their standard `OTEL_TRACES_SAMPLER` names. */
export const OTEL_TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** An http(s) URL: `collector:4318` parses as a URL of scheme `collector:` and must not pass. */
const httpUrl = () => z.url({ protocol: /^https?$/ });

/** The OTLP transports the processes can export with (gRPC is not bundled). */
const otlpProtocol = () => z.preprocess(unsetIfEmpty, z.enum(['http/protobuf', 'http/json']).optional());

/**
 * Tracing settings under their standard OpenTelemetry names. Tracing is on
 * when an OTLP endpoint is set (and OTEL_SDK_DISABLED is not): unset, the
 * SDK is not even loaded.
 */
export const otelEnvShape = (defaultServiceName: string) => ({
  /** Base URL of an OTLP/HTTP collector; traces go to `<base>/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: envOptionalString().pipe(httpUrl().optional()),
  /** The full traces URL, used as given; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: envOptionalString().pipe(httpUrl().optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol(),
  OTEL_SERVICE_NAME: envString().default(defaultServiceName),
  OTEL_TRACES_SAMPLER: z.preprocess(unsetIfEmpty, z.enum(OTEL_TRACES_SAMPLERS).default('parentbased_always_on')),
  /** The ratio of the `*traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(unsetIfEmpty, z.coerce.number().min(0).max(1).default(1)),
  OTEL_SDK_DISABLED: envBool().default(false),
});

/** `host:port`, a port between 1 and 65535 (an IPv6 host in brackets). */
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/]+):(\d{1,5})$/;

/**
 * Where the gateway's and the worker's Redis is: REDIS_URL names one server;
 * REDIS_CLUSTER_NODES, when set, names seed nodes of a Redis Cluster instead
 * (REDIS_URL then lends the nodes only its user, password and `rediss:` TLS). One of the two is required: check it with
 * `requireRedisTarget` on the process's schema.
 */
/**
 * Each organization's share of the workers, per lane (ADR 0033): read by the
 * gateway (admission, the waiting nodes it reports) and the workers (the slot
 * script), which must agree on it.
 */
export const orgSharesEnvShape = {
  /** Light-lane nodes (provider calls) of one organization queued or executing at once, over every worker; the rest wait their turn. */
  ORG_MAX_EXECUTING_NODES: envInt(1, 100_000).default(500),
  /** Heavy-lane nodes (media work) of one organization queued or executing at once, over every worker. */
  ORG_MAX_MEDIA_NODES: envInt(1, 100_000).default(20),
};

/** What every process logs at, and the token its /metrics asks for (unset: open; the probes always are). */
export const observabilityEnvShape = {
  LOG_LEVEL: envLogLevel().default('info'),
  /** When set, /metrics requires `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md). */
  METRICS_TOKEN: envOptionalString().pipe(z.string().min(16).optional()),
};

export const redisEnvShape = {
  REDIS_URL: envOptionalString().pipe(z.url().optional()),
  /** Comma-separated `host:port` seeds of a Redis Cluster (any few of its nodes; the client discovers the rest). */
  REDIS_CLUSTER_NODES: envList().pipe(
    z.array(
      z.string().refine((node) => {
        const m = HOST_PORT.exec(node);
        return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
      }, 'each entry must be host:port'),
    ),
  ),
  /**
   * Namespaces every Redis key, so several deployments (or test files) can share one Redis.
   * On a cluster it is a hash tag (`weft` is used as `{weft}`: `withClusterPrefix`).
   */
  REDIS_PREFIX: envString().default('weft'),
  /**
   * On a cluster, the light lane's shards: each a queue and organization slots in a slot of its own, so
   * that the masters share the work (ADR 0035). The same value in every gateway and worker. Ignored on one Redis.
   */
  REDIS_QUEUE_SHARDS: envInt(1, 1024).default(8),
};

/** Whether `key` has a hash tag: a non-empty `{...}`, the part of a key Redis Cluster hashes to pick its slot. */
export function hasHashTag(key: string): boolean {
  const open = key.indexOf('{');
  return open >= 0 && key.indexOf('}', open + 1) > open + 1;
}

/**
 * A parsed config whose REDIS_PREFIX is a hash tag when it names a cluster:
 * every key under the prefix then lives in one slot, so Lua scripts and
 * BullMQ's multi-key commands stay within it (ADR 0035). Applied by each
 * process's loadConfig; a prefix with a tag already is kept.
 */
export function withClusterPrefix<C extends { REDIS_PREFIX: string; REDIS_CLUSTER_NODES: string[] }>(config: C): C {
  if (config.REDIS_CLUSTER_NODES.length === 0 || hasHashTag(config.REDIS_PREFIX)) return config;
  return { ...config, REDIS_PREFIX: `{${config.REDIS_PREFIX}}` };
}

/** Refinement of a schema spreading `redisEnvShape`: REDIS_URL or REDIS_CLUSTER_NODES must be set. */
export function requireRedisTarget(
  env: { REDIS_URL?: string | undefined; REDIS_CLUSTER_NODES: string[] },
  ctx: z.RefinementCtx,
): void {
  if (!env.REDIS_URL && env.REDIS_CLUSTER_NODES.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_URL'],
      message:
        'required: set REDIS_URL to a Redis server, or REDIS_CLUSTER_NODES to the host:port seeds of a Redis Cluster',
    });
  }
}
