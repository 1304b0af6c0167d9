import { AppError, DependencyUnavailableError, ValidationError } from '@weft/errors';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { bodyTimedOut } from './body-pace';
import { asDependencyOutage } from './dependency-outage';
import { jsonSyntaxError } from './json-body';

// The one place where errors become HTTP responses. An AppError says its own
// status; a client's error saying PostgreSQL, Redis or the store is
// unreachable is a 503 with Retry-After; anything else is a bug: the client
// gets a generic body, the log gets the details. No response ever carries a
// stack trace.

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  body?: unknown;
}

function fromBodyParser(err: BodyParserError): AppError | undefined {
  if (err.type === 'entity.too.large') return new AppError(413, 'Request body too large');
  if (err.type === 'entity.parse.failed') return jsonSyntaxError(err);
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError(415, 'Unsupported request encoding');
  }
  if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
    return new AppError(err.status, 'Malformed request');
  }
  return undefined;
}

function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (!err || typeof err !== 'object') return undefined;
  return fromBodyParser(err as BodyParserError) ?? asDependencyOutage(err);
}

const INTERNAL_ERROR_BODY = '{"detail":"Internal server error"}';

/** The last resort: a JSON 500 written without Express's helpers, or the connection closed. */
function answerInternalError(res: Response): void {
  try {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const name of res.getHeaderNames()) if (!name.startsWith('x-')) res.removeHeader(name);
    res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(INTERNAL_ERROR_BODY);
  } catch {
    res.destroy();
  }
}

function respond(rawErr: unknown, req: Request, res: Response): void {
  if (res.headersSent) {
    // A body given up by the pace watcher was answered 408 already; its handler's abort is expected.
    if (!bodyTimedOut(req)) req.log?.error({ err: rawErr }, 'error after response started');
    res.destroy();
    return;
  }
  const err = toAppError(rawErr);
  if (!err) {
    req.log?.error({ err: rawErr }, 'unhandled error');
    res.status(500).json({ detail: 'Internal server error' });
    return;
  }
  if (err instanceof DependencyUnavailableError) {
    req.log?.warn({ dependency: err.dependency ?? 'unknown', err: rawErr }, 'dependency unavailable');
  }
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  if (err instanceof ValidationError) {
    res.status(422).json({ detail: err.issues });
    return;
  }
  res.status(err.status).json({ detail: err.message, ...err.extra });
}

/**
 * Never throws and never calls next: Express's own final handler, which
 * answers an HTML page (with the stack outside production), is never reached.
 */
export const errorHandler: ErrorRequestHandler = (rawErr, req, res, _next) => {
  try {
    respond(rawErr, req, res);
  } catch (failure) {
    try {
      req.log?.error({ err: failure, original: rawErr }, 'error handler failed');
    } catch {
      // Logging the failure failed too (an unserialisable error): the answer below matters more.
    }
    answerInternalError(res);
  }
};

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: 'Not Found' });
};
