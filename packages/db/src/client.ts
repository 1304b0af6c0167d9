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
