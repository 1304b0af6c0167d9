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
