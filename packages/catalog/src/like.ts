/**
 * Escapes LIKE/ILIKE wildcards so user text matches literally. PostgreSQL's
 * default escape character is the backslash; Prisma's `contains` does not
 * escape anything itself (prisma/prisma#19506).
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
