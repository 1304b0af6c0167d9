import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { afterPositionSql, decodeCursor, toPage, type KeysetPosition, type Page, type PageRequest } from './pagination';

// One page of a list as one SQL statement through the pool Prisma shares. A
// list is what dashboards and SDKs call most; through Prisma a page cost the
// gateway two to three times the CPU it costs this way (an agents page was
// two queries, the agents and then their versions; docs/adr/0027). The text
// of a page depends only on which filters are present, never on their
// values, so each combination is a named statement, prepared once per
// connection.

/** The values of a statement being built: `add` answers the placeholder of each. */
export class SqlValues {
  readonly list: unknown[] = [];

  add(value: unknown): string {
    this.list.push(value);
    return `$${this.list.length}`;
  }
}

export interface PageStatement {
  /**
   * Output columns, named as the row type's properties; `<alias>.id` and
   * `<alias>.created_at AS "createdAt"` among them (the cursor is made of them).
   */
  select: string;
  /** The listed table as `alias`, and any joins. */
  from: string;
  alias: string;
  /** Conditions, ANDed, with placeholders from `values`. */
  where: string[];
  values: SqlValues;
}

/**
 * `limit + 1` rows after the request's cursor, newest first, as a page (see
 * toPage). The table needs an index on (…equality filters, created_at DESC,
 * id DESC) for the order and the keyset to come from it.
 */
export async function pageOfRows<R extends KeysetPosition, T>(
  pool: Pool,
  request: PageRequest,
  statement: PageStatement,
  map: (row: R) => T,
): Promise<Page<T>> {
  const { alias, values } = statement;
  const where = [...statement.where];
  const pos = decodeCursor(request.cursor);
  if (pos) {
    const after = afterPositionSql(pos, values.list.length + 1, alias);
    values.list.push(...after.params);
    where.push(after.sql);
  }
  const text =
    `SELECT ${statement.select} FROM ${statement.from}` +
    ` WHERE ${where.length > 0 ? where.join(' AND ') : 'TRUE'}` +
    ` ORDER BY ${alias}.created_at DESC, ${alias}.id DESC LIMIT ${values.add(request.limit + 1)}`;
  const { rows } = await pool.query<R>({ name: statementName(text), text, values: values.list });
  return toPage(rows, request.limit, map);
}

/** Same text, same name: a name stands for one text on every connection. */
function statementName(text: string): string {
  return `page_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;
}
