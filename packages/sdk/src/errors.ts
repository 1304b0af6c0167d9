// The errors the SDK throws. Every answer the gateway refuses becomes a
// WeftApiError carrying what its error body says (docs/api.md#error-bodies).

/** One problem of a 422 answer: where (`loc`), what was expected (`msg`), a stable `type`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  422: 'validation_error',
  429: 'rate_limited',
  500: 'internal_error',
  501: 'not_implemented',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'gateway_timeout',
};

/** Every error the SDK throws on its own account (an abort rethrows the signal's reason instead). */
export class WeftError extends Error {
  override name = 'WeftError';
}

/** A non-2xx answer of the gateway. */
export class WeftApiError extends WeftError {
  override name = 'WeftApiError';
  /** A stable name for the status (`not_found`, `validation_error`, `external_id_claimed`, ...). */
  readonly code: string;
  /** The 422 list of problems, one per field; undefined for other statuses. */
  readonly details: ValidationIssue[] | undefined;
  /** On a 409 for a claimed external_id: the id of the object that holds it. */
  readonly existingId: string | undefined;

  constructor(
    readonly status: number,
    /** The parsed error body (`{detail: ...}`), or its text when it is not JSON. */
    readonly body: unknown,
    readonly method: string,
    readonly path: string,
    /** `Retry-After` of the answer, in milliseconds, when it carried one. */
    readonly retryAfterMs?: number,
  ) {
    const detail = describeDetail(body);
    super(`${method} ${path} failed with ${status}${detail ? `: ${detail}` : ''}`);
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    this.existingId = typeof fields.existing_id === 'string' ? fields.existing_id : undefined;
    this.details = Array.isArray(fields.detail) ? (fields.detail as ValidationIssue[]) : undefined;
    this.code = this.existingId ? 'external_id_claimed' : (CODES[status] ?? `http_${status}`);
  }

  /** `detail` of the body: the message, or the 422 problems one per line as `loc: msg`. */
  get detail(): string | undefined {
    return describeDetail(this.body);
  }
}

/** The gateway could not be reached, or the connection broke before an answer came. */
export class WeftConnectionError extends WeftError {
  override name = 'WeftConnectionError';
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    const reason = (cause as { cause?: Error })?.cause?.message ?? (cause as Error)?.message ?? String(cause);
    super(`Cannot reach ${new URL(url).origin} (${method} ${new URL(url).pathname}): ${reason}`, { cause });
  }
}

function describeDetail(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() === '' ? undefined : body.slice(0, 500);
  if (typeof body !== 'object' || body === null || !('detail' in body)) return undefined;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return (detail as Partial<ValidationIssue>[])
      .map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? 'invalid'}`)
      .join('\n');
  }
  return undefined;
}
