import { PrismaPg } from '@prisma/adapter-pg';
import pg, { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export interface Db {
  prisma: PrismaClient;
  /** The same pool Prisma uses; for the few hot reads written in SQL. Generic plans (withGenericPlans) unless on PgBouncer. */
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
  // PgBouncer in transaction mode (docs/adr/0034) rejects startup options, and hands
  // each transaction to whichever server connection is free: a statement prepared on one
  // is unknown to the next. There every statement goes unnamed, planned for its values
  // each time, whichever pool it goes through.
  const onBouncer = isPgbouncerUrl(databaseUrl);
  const Client = onBouncer ? UnnamedStatementsClient : pg.Client;
  const genericUrl = onBouncer ? withoutPgbouncerFlag(databaseUrl) : withGenericPlans(databaseUrl);
  const customUrl = onBouncer ? withoutPgbouncerFlag(databaseUrl) : withPlanMode(databaseUrl, CUSTOM_PLANS);
  // A fixed-size pool (min = max): connections, once opened, stay open.
  // pg closes idle ones after 10 s by default, so the first requests after a
  // quiet spell each waited for a new connection and re-prepared its statements:
  // in bench:poll the 300 ms after a 10 s lull held most of the slow answers.
  const pool = new Pool({ Client, connectionString: genericUrl, max: poolSize, min: poolSize, ...timeouts });
  const customPlanPool = new Pool({ Client, connectionString: customUrl, max: 2, ...timeouts });
  for (const p of [pool, customPlanPool]) {
    // A client losing its connection (a database restart) must not crash the process: the
    // pool reports it for idle clients, the client itself for checked-out ones (a transaction
    // between two statements), where nothing else listens. A statement in flight still fails
    // with the error, and the client is discarded when released with it.
    p.on('error', () => undefined);
    p.on('connect', (client) => client.on('error', () => undefined));
  }
  // Prisma's own bounds for an interactive transaction (2 s to get a connection, 5 s in
  // all) are tighter than the pool's: on a busy machine a transaction gave up, as a
  // P2028 and a 500, while the pool would still have served it. The pool's bounds rule
  // instead, and a transaction that cannot start in them is the database being unavailable.
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    transactionOptions: { maxWait: connectTimeoutMs, timeout: queryTimeoutMs },
  });
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

/** A round trip through the shared pool: the readiness probes' and startup's check that the database answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.pool.query('SELECT 1');
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

/**
 * True when `databaseUrl` says it leads to PgBouncer in transaction mode, the
 * way Prisma users know: `?pgbouncer=true`. Nothing on the wire tells a
 * bouncer from a server before a prepared statement goes missing.
 */
export function isPgbouncerUrl(databaseUrl: string): boolean {
  return URL.canParse(databaseUrl) && new URL(databaseUrl).searchParams.get('pgbouncer') === 'true';
}

/** The URL as pg should see it: the flag is ours (and Prisma's), not a connection parameter. */
function withoutPgbouncerFlag(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.delete('pgbouncer');
  return url.toString();
}

/**
 * A pg client that sends every statement unnamed: the `name` of a query
 * config (our hot statements have one, so that a direct connection prepares
 * them once) is left out, so nothing outlives the transaction it ran in.
 */
class UnnamedStatementsClient extends pg.Client {}
const clientQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
UnnamedStatementsClient.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
  return clientQuery.call(this, unnamed(config), ...rest);
} as typeof pg.Client.prototype.query;

function unnamed(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || !('name' in config)) return config;
  // A Submittable (pg-cursor, pg-query-stream) carries its own state: left alone.
  if (typeof (config as { submit?: unknown }).submit === 'function') return config;
  const { name: _name, ...rest } = config as { name?: unknown };
  return rest;
}
