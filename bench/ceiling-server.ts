import express from 'express';
import { Redis } from 'ioredis';
import { Pool } from 'pg';

// The ceilings the gateway benchmark compares against, bare Express routes:
// - GET /agents/:id does one Redis round trip and one PostgreSQL primary-key
//   read with `pg`, which is the least any authenticated, rate-limited read must do;
// - GET /assets-page does the same Redis round trip, reads the rows of a page
//   of assets and answers a page the bench took from the gateway (PUT
//   /assets-page), byte for byte: what any server pays for those bytes, without
//   authentication, rate limiting, routing or signing.
const port = Number(process.env.PORT);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const app = express();
app.get('/agents/:id', async (req, res) => {
  await redis.get(`ceiling:${req.params.id}`);
  const { rows } = await pool.query('SELECT id, name, description FROM agents WHERE id = $1', [req.params.id]);
  res.json(rows[0] ?? null);
});

let assetsPage: { data: { id: string }[] } = { data: [] };
let assetIds: string[] = [];
app.put('/assets-page', express.json({ limit: '1mb' }), (req, res) => {
  assetsPage = req.body as typeof assetsPage;
  assetIds = assetsPage.data.map((asset) => asset.id);
  res.status(204).end();
});
app.get('/assets-page', async (_req, res) => {
  await redis.get('ceiling:assets');
  await pool.query('SELECT * FROM assets WHERE id = ANY($1::uuid[]) ORDER BY created_at DESC, id DESC', [assetIds]);
  res.json(assetsPage);
});
app.listen(port, '127.0.0.1', () => process.send?.('ready'));
