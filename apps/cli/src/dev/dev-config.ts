import path from 'node:path';
import {
  ConfigError,
  envInt,
  envOptionalString,
  envPort,
  envString,
  parseEnv,
  redisEnvShape,
  s3EnvShape,
} from '@weft/config';
import { isPgbouncerUrl } from '@weft/db';
import { DEFAULT_POSTGRES_PORT, DEFAULT_REDIS_PORT, DEFAULT_S3_PORT } from '@weft/devstack';
import { z } from 'zod';

// The only place in the dev launcher that reads process.env. Everything set
// here wins over what the launcher would otherwise find, start or generate;
// variables not listed (LOG_LEVEL, RATE_LIMIT_*, ...) reach the gateway and
// worker untouched.
export const DevEnv = z.object({
  PORT: envPort().default(8080),
  /** Loopback by default: a development stack with generated secrets should not face the network. */
  HOST: envString().default('127.0.0.1'),
  /** The worker's /metrics, /healthz and /readyz listener; 0 lets the worker pick a free port. */
  WORKER_HTTP_PORT: envInt(0, 65535).default(9464),
  /** Loopback by default, like HOST (the worker's own default faces the network, for Prometheus). */
  WORKER_HTTP_HOST: envString().default('127.0.0.1'),
  /** Where embedded services keep their data and dev.json its secrets; relative to the repository root. */
  WEFT_DATA_DIR: envString().default('.weft'),
  DATABASE_URL: envOptionalString().pipe(z.url().optional()),
  /** Where migrations go, PostgreSQL itself when DATABASE_URL leads through PgBouncer; default DATABASE_URL. */
  MIGRATION_DATABASE_URL: envOptionalString().pipe(z.url().optional()),
  /** Without a URL: where a running server is looked for, and else where the embedded one listens. */
  WEFT_POSTGRES_PORT: envPort().default(DEFAULT_POSTGRES_PORT),
  WEFT_REDIS_PORT: envPort().default(DEFAULT_REDIS_PORT),
  WEFT_S3_PORT: envPort().default(DEFAULT_S3_PORT),
  REDIS_URL: envOptionalString().pipe(z.url().optional()),
  /** A Redis Cluster to use instead of a Redis server (nothing is looked for or started); the gateway and worker read it too. */
  REDIS_CLUSTER_NODES: redisEnvShape.REDIS_CLUSTER_NODES,
  ...s3EnvShape,
  ADMIN_TOKEN: envOptionalString().pipe(z.string().min(16).optional()),
  JWT_SECRET: envOptionalString().pipe(z.string().min(32).optional()),
  CREDENTIALS_KEY: envOptionalString(),
});

export type DevConfig = z.output<typeof DevEnv> & { repoRoot: string; dataDir: string };

/** The repository root (this file is apps/cli/src/dev/dev-config.ts). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

export function loadDevConfig(env: Record<string, string | undefined> = process.env): DevConfig {
  const parsed = parseEnv(DevEnv, env);
  if (parsed.DATABASE_URL && isPgbouncerUrl(parsed.DATABASE_URL) && !parsed.MIGRATION_DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  MIGRATION_DATABASE_URL: DATABASE_URL leads through PgBouncer (pgbouncer=true), ' +
        'which keeps no session for migrations: set MIGRATION_DATABASE_URL to the PostgreSQL server itself',
    );
  }
  return { ...parsed, repoRoot: REPO_ROOT, dataDir: path.resolve(REPO_ROOT, parsed.WEFT_DATA_DIR) };
}
