import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Assigns each request an id (the caller's X-Request-Id when it is safe to echo),
 * returns it in the response and attaches a child logger carrying it. Secrets
 * never reach the log: only method, path and status are serialised.
 */
export function requestContext(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      return 'info';
    },
    serializers: {
      req: (req: IncomingMessage & { id?: string; url?: string }) => ({
        id: req.id,
        method: req.method,
        // Query strings may carry cursors and filters but never credentials; headers are left out entirely.
        url: req.url,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
