import { ConfigError } from '@weft/config';
import { createDb } from '@weft/db';
import { createRateLimiter } from '@weft/rate-limit';
import { createStorage, storageConfigFromEnv } from '@weft/storage';
import { Redis } from 'ioredis';
import pino from 'pino';
import { createApp } from './app';
import { createAuthenticator } from './auth/authenticator';
import { loadConfig } from './config';

// Composition root: config → clients → app → listen; SIGTERM drains.
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'gateway' } });
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  // Producer-side connection: fail fast instead of queueing commands while Redis is away.
  const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const storage = createStorage(storageConfigFromEnv(config));
  const authenticator = createAuthenticator({ db, redis, config, logger });
  const rateLimiter = createRateLimiter({
    redis,
    keyPrefix: `${config.REDIS_PREFIX}:rl`,
    limits: {
      default: config.RATE_LIMIT_DEFAULT_PER_MINUTE,
      create: config.RATE_LIMIT_CREATE_PER_MINUTE,
    },
    logger,
  });

  const app = createApp({
    config,
    db,
    redis,
    logger,
    authenticator,
    rateLimiter,
    pingStorage: () => storage.ping(),
  });

  const server = app.listen(config.PORT, config.HOST);
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') {
      logger.fatal(`Port ${config.PORT} is already in use: set PORT to a free port`);
    } else {
      logger.fatal({ err }, 'cannot listen');
    }
    process.exit(1);
  });
  server.on('listening', () => logger.info({ port: config.PORT }, 'gateway listening'));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting connections, let in-flight requests finish, then close clients.
    server.close();
    server.closeIdleConnections();
    const deadline = setTimeout(() => server.closeAllConnections(), 10_000);
    deadline.unref();
    await new Promise<void>((resolve) => server.once('close', () => resolve()));
    await authenticator.close();
    await db.close();
    redis.disconnect();
    storage.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
