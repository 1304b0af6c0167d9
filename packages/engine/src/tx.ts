import type { Pool, PoolClient } from 'pg';

/** Statements a transaction sends in the same round trip as its COMMIT (see atCommit). */
const atCommitStatements = new WeakMap<PoolClient, string[]>();

/**
 * Runs `fn` in one transaction on a client of the pool Prisma shares. The hot
 * path of run execution is written in SQL: an un-batched Prisma query costs
 * about four times the CPU of `pg` (shared/design/performance-facts.md), and
 * these statements run several times per node.
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    const last = atCommitStatements.get(client);
    await client.query(last ? `${last.join(';\n')};\nCOMMIT` : 'COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    atCommitStatements.delete(client);
    client.release();
  }
}

/**
 * Sends `sql` with the transaction's COMMIT, in one simple-protocol message,
 * so a row lock it takes (an organization's balance, which every run of the
 * organization updates) is held only while PostgreSQL executes and commits,
 * never across a round trip to this process's busy event loop. The simple
 * protocol takes no parameters: build `sql` only with sqlLiteral().
 */
export function atCommit(client: PoolClient, sql: string): void {
  const list = atCommitStatements.get(client);
  if (list) list.push(sql);
  else atCommitStatements.set(client, [sql]);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A value safe to place in an atCommit statement: an integer or a UUID, checked, never free text. */
export function sqlLiteral(value: number | string): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
    return String(value);
  }
  if (!UUID.test(value)) throw new TypeError('not a UUID');
  return `'${value}'::uuid`;
}

/** Thrown inside withTransaction to roll back without it being an error for the caller. */
export class Rollback extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}
