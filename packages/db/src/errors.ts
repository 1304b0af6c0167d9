import { isSocketFailure } from '@weft/errors';
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

// SQLSTATE classes of a server that cannot serve now: connection exception,
// insufficient resources, operator intervention (shutdown, starting, statement
// timeout), system error. Nothing about the statement itself.
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58'];
// Prisma's codes for a server it cannot reach, that timed out or closed the
// connection (P1xxx), a pool that found no connection in time (P2024) and a
// server refusing more connections (P2037).
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
// The driver adapter's names for the same, as Prisma keeps them in `meta.driverAdapterError`.
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
// pg's own errors for a connection that ended or never came; they carry no code.
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  // query_timeout: sent, and no answer in time.
  'Query read timeout',
  'Client has encountered a connection error',
  'is not queryable',
  'Client was closed',
];

// P2028 covers every misuse of an interactive transaction; only this one is the pool's
// lack of a free connection, the rest (a transaction used after it closed) are bugs.
function isTransactionNotStarted(err: Prisma.PrismaClientKnownRequestError): boolean {
  return err.message.includes('Unable to start a transaction in the given time');
}

function isUnavailableSqlState(code: unknown): boolean {
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_CLASSES.some((c) => code.startsWith(c));
}

interface DbErrorShape {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
}

/**
 * True when a statement failed because the database could not be reached or
 * could not serve it (down, restarting, out of connections or resources),
 * through Prisma or straight from pg, not because of the statement: the same
 * statement may succeed once the database is back.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 8) return false;
  if (err instanceof Prisma.PrismaClientInitializationError) return true;
  if (err instanceof Prisma.PrismaClientKnownRequestError && PRISMA_UNAVAILABLE.has(err.code)) return true;
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2028' && isTransactionNotStarted(err)) {
    return true;
  }
  const state = sqlState(err);
  if (state) return isUnavailableSqlState(state);
  const e = err as DbErrorShape;
  const adapter = e.meta?.driverAdapterError?.cause;
  if (adapter && (ADAPTER_UNAVAILABLE.has(adapter.kind as string) || isUnavailableSqlState(adapter.originalCode))) {
    return true;
  }
  if (isUnavailableSqlState(e.code) || isSocketFailure(err)) return true;
  if (typeof e.message === 'string' && PG_CONNECTION_MESSAGES.some((m) => (e.message as string).includes(m))) {
    return true;
  }
  return isDatabaseUnavailable(e.cause, depth + 1);
}
