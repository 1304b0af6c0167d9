import { Prisma } from './generated/prisma/client';

/** True when the error is a unique-constraint violation (on any of `fields`, if given). */
export function isUniqueViolation(err: unknown, fields?: string[]): boolean {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2002') return false;
  if (!fields) return true;
  const text = JSON.stringify(err.meta ?? {});
  return fields.every((f) => text.includes(f));
}
