import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export interface Db {
  prisma: PrismaClient;
  /** The same pool Prisma uses; for the few hot reads written in SQL. Generic plans (withGenericPlans). */
  pool: Pool;
  /**
   * Two connections whose statements are planned for their parameters (custom
   * plans): for statements over a number of rows that varies from call to
   * call (a worker's grouped reads and commits), where a plan made once from
   * the statistics of that moment could be wrong later. Connects on first use.
   */
  customPlanPool: Pool;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl: string;
  poolSize?: number;
  /** How long a statement waits for a connection (a free one, or a new one opening). */
  connectTimeoutMs?: number;
  /** How long a statement waits for its answer once sent. */
  queryTimeoutMs?: number;
}

export function createDb({
  databaseUrl,
  poolSize = 10,
  connectTimeoutMs = 10_000,
  queryTimeoutMs = 30_000,
}: DbOptions): Db {
  // A database that stops answering without closing its connections (a
  // partition, a failover behind a moved address) would otherwise hold every
  // statement until TCP gives up, minutes later. Past these bounds a
  // statement fails as the database being unavailable (isDatabaseUnavailable).
  const timeouts = { connectionTimeoutMillis: connectTimeoutMs, query_timeout: queryTimeoutMs };
  // A fixed-size pool (min = max): connections, once opened, stay open.
  // pg closes idle ones after 10 s by default, so the first requests after a
  // quiet spell each waited for a new connection and re-prepared its statements:
  // in bench:poll the 300 ms after a 10 s lull held most of the slow answers.
  const pool = new Pool({ connectionString: withGenericPlans(databaseUrl), max: poolSize, min: poolSize, ...timeouts });
  const customPlanPool = new Pool({ connectionString: withPlanMode(databaseUrl, CUSTOM_PLANS), max: 2, ...timeouts });
  for (const p of [pool, customPlanPool]) {
    // A client losing its connection (a database restart) must not crash the process: the
    // pool reports it for idle clients, the client itself for checked-out ones (a transaction
    // between two statements), where nothing else listens. A statement in flight still fails
    // with the error, and the client is discarded when released with it.
    p.on('error', () => undefined);
    p.on('connect', (client) => client.on('error', () => undefined));
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    customPlanPool,
    async close() {
      await prisma.$disconnect();
      await Promise.all([pool.end(), customPlanPool.end()]);
    },
  };
}

const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan';
const CUSTOM_PLANS = '-c plan_cache_mode=force_custom_plan';

/**
 * `databaseUrl` with generic plans for every statement of its connections (a
 * startup option, added to any `options` the URL already holds). PostgreSQL
 * otherwise plans the first executions of a prepared statement with their
 * parameters, and keeps doing so while the generic plan looks costlier, which
 * it does for the engine's multi-CTE statements: in bench:runs a fifth of the
 * server's CPU went to planning them again on every execution. Our statements
 * select by keys (ids, organization, run), where the generic plan is the custom one.
 */
export function withGenericPlans(databaseUrl: string): string {
  return withPlanMode(databaseUrl, GENERIC_PLANS);
}

function withPlanMode(databaseUrl: string, mode: string): string {
  if (!URL.canParse(databaseUrl)) return databaseUrl;
  const url = new URL(databaseUrl);
  const options = url.searchParams.get('options');
  if (options?.includes('plan_cache_mode')) return databaseUrl;
  url.searchParams.set('options', options ? `${options} ${mode}` : mode);
  return url.toString();
}
