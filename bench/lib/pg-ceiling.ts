import { Pool } from 'pg';

/**
 * PostgreSQL single-row UPDATE by primary key, `clients` connections each
 * committing one statement at a time for `durationMs`, on a scratch table of
 * the bench database (dropped afterwards). Answers commits per second.
 */
export async function pgUpdateTps(databaseUrl: string, clients = 8, durationMs = 5_000): Promise<number> {
  const pool = new Pool({ connectionString: databaseUrl, max: clients });
  try {
    await pool.query('CREATE TABLE bench_scratch (id int PRIMARY KEY, n bigint NOT NULL DEFAULT 0)');
    await pool.query('INSERT INTO bench_scratch (id) SELECT generate_series(1, 10000)');
    let commits = 0;
    const deadline = performance.now() + durationMs;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < deadline) {
            await client.query({
              name: 'bench_update',
              text: 'UPDATE bench_scratch SET n = n + 1 WHERE id = $1',
              values: [1 + Math.floor(Math.random() * 10000)],
            });
            commits++;
          }
        } finally {
          client.release();
        }
      }),
    );
    return commits / ((performance.now() - started) / 1000);
  } finally {
    await pool.query('DROP TABLE IF EXISTS bench_scratch');
    await pool.end();
  }
}
