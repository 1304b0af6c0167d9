import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Response, type Router } from 'express';
import type { GatewayDeps } from '../deps';
import { notFoundHandler } from '../http/error-handler';
import { consoleCsp } from './console-csp';
import { ConsoleNotBuiltError } from './console-not-built';

// The web console: a single-page app built to static files (index.html and
// hashed files under assets/), served at /console/ outside the API. Every
// request under /console is answered here, so none reaches the API's rate
// limiter, 405 or 404 handling.

export const CONSOLE_PATH = '/console';

/** Hashed names change with their content, so a browser never needs to ask again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files: always revalidated (its Last-Modified makes that cheap). */
const REVALIDATE = 'no-cache';

function securityHeaders(csp: string): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  };
}

/** Files are only read; `/console` itself redirects, as the page's relative URLs need the slash. */
const readOnly: RequestHandler = (req, res, next) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).json({ detail: `Method ${req.method} not allowed on this path; allowed: GET, HEAD` });
    return;
  }
  const query = req.originalUrl.indexOf('?');
  const pathname = query < 0 ? req.originalUrl : req.originalUrl.slice(0, query);
  if (!pathname.endsWith('/') && req.path === '/') {
    res.redirect(308, `${CONSOLE_PATH}/${query < 0 ? '' : req.originalUrl.slice(query)}`);
    return;
  }
  next();
};

const staticFiles = (dir: string, cacheControl: string) =>
  express.static(dir, {
    index: false,
    redirect: false,
    cacheControl: false,
    setHeaders: (res: Response) => res.setHeader('Cache-Control', cacheControl),
  });

/** Any other path is a route of the app (/console/runs/123): its index.html, which routes on the client. */
function appShell(dir: string): RequestHandler {
  // With `root`, only the path under it is checked for dotfiles: CONSOLE_DIR may be in a dotted folder.
  const options = { root: dir, cacheControl: false };
  return (_req, res, next) => {
    res.setHeader('Cache-Control', REVALIDATE);
    res.sendFile('index.html', options, (err?: NodeJS.ErrnoException & { status?: number }) => {
      if (!err) return;
      // The client went away: nobody is left to answer.
      if (err.code === 'ECONNABORTED' || err.syscall === 'write') return;
      res.removeHeader('Cache-Control');
      next(err.status === 404 ? new ConsoleNotBuiltError() : err);
    });
  };
}

export function consoleStatic(deps: Pick<GatewayDeps, 'config' | 'logger'>): Router {
  const dir = path.resolve(deps.config.CONSOLE_DIR);
  const indexFile = path.join(dir, 'index.html');
  // Read per request, so a console built while the gateway runs is served; said once here.
  if (!fs.existsSync(indexFile)) {
    deps.logger.warn({ dir }, 'the console is not built (no index.html): /console/ answers 404; run npm run build');
  }
  const router = express.Router();
  router.use(securityHeaders(consoleCsp(deps.config)), readOnly);
  router.use('/assets', staticFiles(path.join(dir, 'assets'), IMMUTABLE), notFoundHandler);
  router.use(staticFiles(dir, REVALIDATE), appShell(dir));
  return router;
}
