import { createTestEnv, type TestEnv } from '@weft/testing';
import { createDb, isPgbouncerUrl, withGenericPlans } from './client';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.cleanup());

test('connections plan prepared statements generically (the custom-plan pool: per call), keeping the options a URL already sets', async () => {
  const url = new URL(env.databaseUrl);
  url.searchParams.set('options', '-c statement_timeout=12345');
  const db = createDb({ databaseUrl: url.toString(), poolSize: 1 });
  try {
    const { rows } = await db.pool.query<{ mode: string; timeout: string }>(
      `SELECT current_setting('plan_cache_mode') AS mode, current_setting('statement_timeout') AS timeout`,
    );
    expect(rows[0]).toEqual({ mode: 'force_generic_plan', timeout: '12345ms' });
    // The pool for statements over a varying number of rows plans each one for its parameters.
    const custom = await db.customPlanPool.query<{ mode: string; timeout: string }>(
      `SELECT current_setting('plan_cache_mode') AS mode, current_setting('statement_timeout') AS timeout`,
    );
    expect(custom.rows[0]).toEqual({ mode: 'force_custom_plan', timeout: '12345ms' });
  } finally {
    await db.close();
  }
});

test('a URL that chooses its own plan_cache_mode keeps it', () => {
  const url = 'postgresql://u@h:5432/d?options=-c%20plan_cache_mode%3Dauto';
  expect(withGenericPlans(url)).toBe(url);
});

describe('through PgBouncer in transaction mode (pgbouncer=true)', () => {
  test('named statements of many connections and transactions all run; no startup option is sent', async () => {
    // A client and a bouncer with more connections than one: each transaction may land on any of them.
    const db = createDb({ databaseUrl: env.pgbouncerDatabaseUrl, poolSize: 4 });
    try {
      const named = (i: number) =>
        db.pool.query<{ n: number }>({ name: 'client_test_echo', text: 'SELECT $1::int AS n', values: [i] });
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => named(i)));
      expect(answers.map((a) => a.rows[0]!.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      const inTransactions = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const client = await db.customPlanPool.connect();
          try {
            await client.query('BEGIN');
            const { rows } = await client.query({ name: 'client_test_echo', text: 'SELECT $1::int AS n', values: [i] });
            await client.query('COMMIT');
            return rows[0].n as number;
          } finally {
            client.release();
          }
        }),
      );
      expect(inTransactions).toEqual(Array.from({ length: 8 }, (_, i) => i));
      // PgBouncer would refuse `options` at connect: the plans are the server's default.
      const { rows } = await db.pool.query(`SELECT current_setting('plan_cache_mode') AS mode`);
      expect(rows[0]).toEqual({ mode: 'auto' });
      expect(await db.prisma.organization.count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  test('a URL tells it is a bouncer by pgbouncer=true alone', () => {
    expect(isPgbouncerUrl('postgresql://u@h:6432/d?pgbouncer=true')).toBe(true);
    expect(isPgbouncerUrl('postgresql://u@h:6432/d?schema=s&pgbouncer=true')).toBe(true);
    expect(isPgbouncerUrl('postgresql://u@h:6432/d?pgbouncer=false')).toBe(false);
    expect(isPgbouncerUrl('postgresql://u@h:5432/d')).toBe(false);
  });
});
