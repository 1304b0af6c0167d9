import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withLogContext } from '@weft/telemetry';
import type { Logger } from 'pino';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request id, also returned in X-Request-Id. */
      id: string;
      /** The root logger: its lines carry the request id through the log context. */
      log: Logger;
    }
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is safe to echo),
 * returns it, serves the request inside a log context carrying it (so every
 * line written meanwhile, by any code and any logger built with
 * logContextOptions, has `reqId`), and writes one access-log line when the
 * response ends.
 *
 * Written here rather than with pino-http: pino-http builds two child loggers
 * and serialises the request for every request, about 7% of the gateway's CPU
 * (self time) in a profile of bench:gateway's catalog reads. Here no child
 * logger is built at all: the context is one small object per request. Only
 * method, path and status are logged: headers (credentials) never are.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    req.log = logger;
    const started = performance.now();
    res.once('close', () => {
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          reqId: id,
          method: req.method,
          url: req.originalUrl,
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          // A client that hung up before the response was complete.
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    withLogContext({ reqId: id }, next);
  };
}
