import { AppError, ValidationError } from '@weft/errors';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { bodyTimedOut } from './body-pace';

// The one place where errors become HTTP responses. Anything that is not an
// AppError is a bug: the client gets a generic body, the log gets the details.

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  body?: unknown;
}

function fromBodyParser(err: BodyParserError): AppError | undefined {
  if (err.type === 'entity.too.large') return new AppError(413, 'Request body too large');
  if (err.type === 'entity.parse.failed') {
    return new ValidationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError(415, 'Unsupported request encoding');
  }
  if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
    return new AppError(err.status, 'Malformed request');
  }
  return undefined;
}

export const errorHandler: ErrorRequestHandler = (rawErr, req, res, _next) => {
  const err = rawErr instanceof AppError ? rawErr : fromBodyParser(rawErr as BodyParserError);
  if (res.headersSent) {
    // A body given up by the pace watcher was answered 408 already; its handler's abort is expected.
    if (bodyTimedOut(req)) {
      res.destroy();
      return;
    }
    req.log?.error({ err: rawErr }, 'error after response started');
    res.destroy();
    return;
  }
  if (!err) {
    req.log?.error({ err: rawErr }, 'unhandled error');
    res.status(500).json({ detail: 'Internal server error' });
    return;
  }
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  if (err instanceof ValidationError) {
    res.status(422).json({ detail: err.issues });
    return;
  }
  res.status(err.status).json({ detail: err.message, ...err.extra });
};

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: 'Not Found' });
};
