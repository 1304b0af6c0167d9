import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export interface Db {
  prisma: PrismaClient;
  /** The same pool Prisma uses; for the few hot reads written in SQL. */
  pool: Pool;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl: string;
  poolSize?: number;
}

export function createDb({ databaseUrl, poolSize = 10 }: DbOptions): Db {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  // Generic plans for every statement of the connection. PostgreSQL otherwise plans the first
  // executions of a prepared statement with its parameters, and keeps doing so whenever the
  // generic plan looks costlier, which it does for the engine's multi-CTE statements: in
  // bench:runs a fifth of the server's CPU went to planning them again on every execution.
  // Our statements select by keys (ids, organization, run), where a generic plan is the custom one.
  pool.on('connect', (client) => {
    client.query('SET plan_cache_mode = force_generic_plan').catch(() => undefined);
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
