import { ConfigError } from '@weft/config';
import pino from 'pino';
import { createApp } from './app';
import { createGatewayRuntime } from './compose';
import { loadConfig } from './config';

// Composition root: config → clients → app → listen; SIGTERM drains.
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'gateway' } });
  const runtime = createGatewayRuntime(config, logger);
  const app = createApp(runtime.deps);

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
    await runtime.close();
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
