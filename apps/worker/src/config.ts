import { envInt, envLogLevel, envString, parseEnv, s3EnvShape } from '@weft/config';
import { z } from 'zod';

// The only place in the worker that reads process.env.
const WorkerEnv = z.object({
  DATABASE_URL: envString().pipe(z.url()),
  DATABASE_POOL_SIZE: envInt(1, 200).default(10),
  REDIS_URL: envString().pipe(z.url()),
  REDIS_PREFIX: envString().default('weft'),
  ...s3EnvShape,
  /** Seconds a worker may take on SIGTERM to finish or hand back its jobs. */
  WORKER_SHUTDOWN_GRACE_SECONDS: envInt(1, 3600).default(30),
  WORKER_HEARTBEAT_INTERVAL_MS: envInt(500, 60_000).default(5000),
  LOG_LEVEL: envLogLevel().default('info'),
});

export type WorkerConfig = z.output<typeof WorkerEnv>;

export function loadConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  return parseEnv(WorkerEnv, env);
}
