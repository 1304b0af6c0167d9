import { createTestEnv, type TestEnv } from '@weft/testing';
import { createDb, withGenericPlans } from './client';

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
