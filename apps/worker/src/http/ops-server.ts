import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerMatches, type MetricsRegistry } from '@weft/metrics';
import type { Logger } from 'pino';
import type { Readiness } from '@weft/health';

// The worker's only HTTP surface, for Prometheus and Kubernetes probes:
// GET /metrics, /healthz (liveness: the event loop answers) and /readyz.
// Plain node:http: three fixed paths need no framework.

export interface OpsServerOptions {
  host: string;
  /** 0 picks a free port (tests); the chosen one is logged and returned. */
  port: number;
  metrics: MetricsRegistry;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  readiness(): Promise<Readiness>;
  logger: Logger;
}

/** The listener cannot start where configured; the message names the address and the setting to change. */
export class ListenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { logger } = options;
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, { detail: 'Method Not Allowed' }, { Allow: 'GET, HEAD' });
      return;
    }
    switch (path) {
      case '/healthz':
        json(res, 200, { status: 'ok' });
        return;
      case '/readyz': {
        const body = await options.readiness();
        json(res, body.status === 'ok' ? 200 : 503, body);
        return;
      }
      case '/metrics': {
        if (options.metricsToken !== undefined && !bearerMatches(req.headers.authorization, options.metricsToken)) {
          json(res, 401, { detail: 'Missing or wrong metrics token' }, { 'WWW-Authenticate': 'Bearer' });
          return;
        }
        const text = await options.metrics.expose();
        res.writeHead(200, { 'Content-Type': options.metrics.contentType });
        res.end(text);
        return;
      }
      default:
        json(res, 404, { detail: 'Not Found' });
    }
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err }, 'ops endpoint failed');
      if (!res.headersSent) json(res, 500, { detail: 'Internal server error' });
      else res.destroy();
    });
  });
  // Probes and scrapes are short; an idle connection must not hold up shutdown.
  server.keepAliveTimeout = 5000;
  server.listen(options.port, options.host);
  try {
    // Rejects with the server's 'error' (a taken port) instead of waiting on.
    await once(server, 'listening');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ListenError(
      e.code === 'EADDRINUSE'
        ? `Port ${options.port} on ${options.host} is already in use: set WORKER_HTTP_PORT to a free port (0 picks one)`
        : `Cannot listen on ${options.host}:${options.port} (WORKER_HTTP_HOST, WORKER_HTTP_PORT): ${e.message}`,
      { cause: e },
    );
  }
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: options.host }, 'worker http listening');
  return {
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
