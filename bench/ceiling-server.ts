import express from 'express';
import { Redis } from 'ioredis';
import { Pool } from 'pg';

// The ceiling the gateway benchmark compares against: a bare Express route that
// does one Redis round trip and one PostgreSQL primary-key read with `pg`,
// which is the least any authenticated, rate-limited read must do.
const port = Number(process.env.PORT);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const app = express();
app.get('/agents/:id', async (req, res) => {
  await redis.get(`ceiling:${req.params.id}`);
  const { rows } = await pool.query('SELECT id, name, description FROM agents WHERE id = $1', [req.params.id]);
  res.json(rows[0] ?? null);
});
app.listen(port, '127.0.0.1', () => process.send?.('ready'));
