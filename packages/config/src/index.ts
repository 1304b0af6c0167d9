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
