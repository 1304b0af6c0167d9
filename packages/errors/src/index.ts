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

/** 422 with the body of interface.md 2.14. */
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

/** `external_id` already claimed; carries the id of the holder (extensions.md 1). */
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

export class ServiceUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(503, message, {}, retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) });
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
