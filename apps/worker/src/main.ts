import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '@weft/config';
import { createDb } from '@weft/db';
import { createWorkerConnection, startHeartbeat } from '@weft/queue';
import pino from 'pino';
import { loadConfig } from './config';

// Composition root of a worker process. Node execution processors are
// registered here as they are built (see the "Run execution" issue); today the
// process connects, proves its dependencies and announces itself with a
// heartbeat that operators and the gateway can see.
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'worker' } });
  const workerId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createWorkerConnection(config.REDIS_URL);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));

  await db.pool.query('SELECT 1');
  await redis.ping();
  const heartbeat = startHeartbeat({
    redis,
    prefix: config.REDIS_PREFIX,
    workerId,
    intervalMs: config.WORKER_HEARTBEAT_INTERVAL_MS,
  });
  logger.info({ workerId }, 'worker started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    const force = setTimeout(() => process.exit(1), config.WORKER_SHUTDOWN_GRACE_SECONDS * 1000);
    force.unref();
    await heartbeat.stop();
    await db.close();
    redis.disconnect();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
