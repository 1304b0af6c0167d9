import type { Pool, PoolClient } from 'pg';

/**
 * Runs `fn` in one transaction on a client of the pool Prisma shares. The hot
 * path of run execution is written in SQL: an un-batched Prisma query costs
 * about four times the CPU of `pg`, and
 * these statements run several times per node.
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Thrown inside withTransaction to roll back without it being an error for the caller. */
export class Rollback extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}
