// First import: starts tracing, when configured, before anything loads `http`.
import { startupConfig, tracing } from './tracing';
import { ConfigError } from '@weft/config';
import { watchEvictionPolicy } from '@weft/queue';
import { logContextOptions } from '@weft/telemetry';
import pino from 'pino';
import { createApp } from './app';
import { createGatewayRuntime } from './compose';
import { createHttpServer } from './http/http-server';
import { serverOptions } from './http/server-options';

// Composition root: config → clients → app → listen; SIGTERM drains.
async function main() {
  const config = startupConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'gateway' }, ...logContextOptions });
  const runtime = createGatewayRuntime(config, logger);
  // A Redis that may evict keys can lose queued work: said at error level at start-up, and by /readyz.
  watchEvictionPolicy(runtime.deps.redis, logger);
  const app = createApp(runtime.deps);

  const server = createHttpServer(app, serverOptions(config, logger));
  server.listen(config.PORT, config.HOST);
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
    const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
    server.close();
    const deadline = setTimeout(() => server.closeAllConnections(), 10_000);
    deadline.unref();
    // Event streams last as long as their runs: they end now, and their clients reconnect to another instance.
    await runtime.deps.runEvents.close();
    server.closeIdleConnections();
    await closed;
    await runtime.close();
    await tracing.shutdown();
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
