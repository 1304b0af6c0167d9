import { Prisma } from './generated/prisma/client';

/** True when the error is a unique-constraint violation (on any of `fields`, if given). */
export function isUniqueViolation(err: unknown, fields?: string[]): boolean {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2002') return false;
  if (!fields) return true;
  const text = JSON.stringify(err.meta ?? {});
  return fields.every((f) => text.includes(f));
}

/** True when a statement sent through the pool (`pg`, not Prisma) violated the unique index `index`. */
export function violatesUniqueIndex(err: unknown, index: string): boolean {
  const pgErr = err as { code?: unknown; constraint?: unknown } | null;
  // 23505: PostgreSQL's unique_violation.
  return pgErr?.code === '23505' && pgErr.constraint === index;
}

/** The SQLSTATE of an error PostgreSQL sent (`pg`'s DatabaseError, which always has a severity), if it is one. */
function sqlState(err: unknown): string | undefined {
  const { code, severity } = (err ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && typeof severity === 'string' ? code : undefined;
}

/**
 * True when PostgreSQL refused a statement for the values it was given: a
 * data exception (class 22: a number out of its column's range, text a
 * column or jsonb cannot represent) or a program limit (class 54: a value
 * too large). Sent again as it is, the statement fails again: retrying it is
 * pointless, and the caller must fail whatever brought those values.
 */
export function isRefusedData(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && (state.startsWith('22') || state.startsWith('54'));
}

// Connection exception, insufficient resources, operator intervention (shutdown,
// statement timeout), system error: nothing about the statement itself.
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58'];
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);
// What `pg` throws, without a code, when a connection ends or the pool cannot get one.
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error/,
];

/**
 * True when a statement failed because the database could not be reached or
 * could not serve it (down, restarting, out of connections or resources),
 * not because of the statement: the same statement may succeed later.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const state = sqlState(err);
  if (state) return UNAVAILABLE_CLASSES.some((c) => state.startsWith(c));
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && SOCKET_ERRORS.has(code)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(message));
}
