import type { Request } from 'express';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { HttpServerOptions } from './http-server';

/** The HTTP server's settings from the configuration, as main.ts and the test gateway serve the app. */
export function serverOptions(config: GatewayConfig, logger: Logger): HttpServerOptions {
  return {
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    bodyPace: {
      stallMs: config.HTTP_BODY_STALL_MS,
      minBytesPerSecond: config.HTTP_BODY_MIN_BYTES_PER_SECOND,
      // Logged from a timer, outside the request's log context: the id is the request's own.
      onTimeout: (req, why) =>
        logger.info(
          { reqId: (req as Request).id, method: req.method, path: req.url?.split('?')[0], why },
          'request body given up',
        ),
    },
  };
}
