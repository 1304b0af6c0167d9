import { invalid } from '@weft/errors';

// Cursor pagination shared by every list endpoint (docs/api.md#pagination).
//
// Order: newest first, `created_at DESC, id DESC` (ids break ties between rows
// created in the same millisecond). A cursor is the position of the last item
// returned; the next page is "strictly after it" in that order (keyset
// pagination), so rows inserted while a client pages land before its first page
// and nothing is skipped or repeated. `created_at` columns are timestamptz(3),
// so the millisecond precision of a JS Date round-trips exactly.
//
// Each table listed this way has an index on (…filters, created_at DESC, id DESC).

export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DECODED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|(.+)$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,256}$/;

/** Opaque to clients: base64url of `<ISO created_at>|<id>`. */
export function encodeCursor({ createdAt, id }: KeysetPosition): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`, 'utf8').toString('base64url');
}

/**
 * The position a cursor names, undefined when there is none; a cursor that
 * this module did not produce is a 422 at `loc`.
 */
export function decodeCursor(
  cursor: string | undefined,
  loc: (string | number)[] = ['query', 'cursor'],
): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const bad = () =>
    invalid(loc, 'Invalid cursor: pass the next_cursor of a previous page unchanged', 'value_error', cursor);
  if (!BASE64URL.test(cursor)) throw bad();
  const match = DECODED.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw bad();
  const createdAt = new Date(match[1]!);
  const id = match[2]!;
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== match[1] || !UUID.test(id)) throw bad();
  return { createdAt, id };
}

/**
 * Rows strictly after `pos` in newest-first order (ties by id), as a row
 * comparison that PostgreSQL answers with the (created_at DESC, id DESC) index. `param`
 * is the number of the first placeholder to use; `alias` qualifies the columns.
 */
export function afterPositionSql(
  pos: KeysetPosition | undefined,
  param: number,
  alias?: string,
): { sql: string; params: unknown[] } {
  if (!pos) return { sql: 'TRUE', params: [] };
  const col = (name: string) => (alias ? `${alias}.${name}` : name);
  return {
    sql: `(${col('created_at')}, ${col('id')}) < ($${param}::timestamptz, $${param + 1}::uuid)`,
    params: [pos.createdAt, pos.id],
  };
}

/**
 * Builds the page from rows fetched with `take: limit + 1` in newest-first
 * order: the extra row only tells whether there is more.
 */
export function toPage<R extends KeysetPosition, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    data: items.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last) : null,
  };
}

export interface PageRequest {
  limit: number;
  cursor?: string;
}
