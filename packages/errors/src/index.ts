// One error vocabulary for the whole service. Use cases throw these; the
// gateway maps them to HTTP in exactly one place (apps/gateway/src/http/error-handler.ts).

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra fields merged into the `{"detail": ...}` body, e.g. `existing_id`. */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 422 with the body of docs/api.md#error-bodies. */
export class ValidationError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, issues[0]?.msg ?? 'Validation failed');
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Not authenticated') {
    super(401, message, {}, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

/** Also used for objects that exist but belong to another organization. */
export class NotFoundError extends AppError {
  constructor(what: string) {
    super(404, `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(409, message, extra);
  }
}

/** `external_id` already claimed; carries the id of the holder (docs/api.md#idempotency-with-external_id). */
export class ExternalIdConflictError extends ConflictError {
  constructor(existingId: string) {
    super('external_id already used', { existing_id: existingId });
  }
}

export class GoneError extends AppError {
  constructor(message: string) {
    super(410, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body too large') {
    super(413, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Rate limit exceeded', {}, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/**
 * Long enough for a database restart or a Redis failover to be over for most
 * clients that honour it, short enough not to idle them once it is.
 */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** Always with Retry-After: a 503 is a "not now", and the client is told when to ask again. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds = DEPENDENCY_RETRY_AFTER_SECONDS) {
    super(503, message, {}, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** A service the gateway stands on. */
export type Dependency = 'database' | 'redis' | 'storage';

const DEPENDENCY_NAMES: Record<Dependency, string> = {
  database: 'The database',
  redis: 'Redis',
  storage: 'Object storage',
};

/**
 * A dependency could not be reached (refused, cut, timed out, or answered
 * that it is unavailable). Nothing is wrong with the request: the same request
 * may succeed later, so it is a 503 with Retry-After, never a 500.
 * `dependency` is undefined when only the transport error is known.
 */
export class DependencyUnavailableError extends ServiceUnavailableError {
  constructor(
    readonly dependency: Dependency | undefined,
    options: { cause?: unknown } = {},
  ) {
    const what = dependency ? DEPENDENCY_NAMES[dependency] : 'A service this request needs';
    super(`${what} is temporarily unavailable; retry later`, DEPENDENCY_RETRY_AFTER_SECONDS);
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * The client hung up before its answer was ready: the work done only for that
 * answer stops. 499 is nginx's status for it; nobody is left to read it, but
 * logs and metrics tell it apart from the service's own failures.
 */
export class ClientClosedRequestError extends AppError {
  constructor() {
    super(499, 'Client closed request');
  }
}

/** A validation error at a single location, the common case. */
export function invalid(loc: (string | number)[], msg: string, type = 'value_error', input?: unknown): ValidationError {
  const issue: ValidationIssue = { loc, msg, type };
  if (input !== undefined) issue.input = input;
  return new ValidationError([issue]);
}

/** Node's codes for a connection refused, cut, timed out or never resolved. */
export const SOCKET_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * `err` or an error it wraps (`cause`, an AggregateError's parts) is a socket
 * failure: a connection refused, cut or timed out. Clients such as pg report
 * these bare, without saying which server they were talking to.
 */
export function isSocketFailure(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 8) return false;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && SOCKET_ERROR_CODES.has(code)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isSocketFailure(inner, depth + 1))) return true;
  return isSocketFailure(cause, depth + 1);
}

export { TransientError } from './transient';
