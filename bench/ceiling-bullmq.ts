import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

// The queue ceiling bench:runs compares against: a BullMQ worker with the
// real worker's concurrency draining no-op jobs in a process of its own, on
// the same Redis. The queue is filled first (addBulk), then the worker starts
// and the completions are counted for BENCH_DURATION_MS (or until drained).
// Prints one JSON line: { jobs, seconds, jobsPerSecond }.

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.REDIS_PREFIX ?? 'bench-ceiling';
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const jobs = Number(process.env.JOBS ?? 60_000);
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 5_000);

async function main() {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('ceiling-noop', { connection, prefix });
  const options = { removeOnComplete: true, removeOnFail: true };
  for (let i = 0; i < jobs; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({
        name: 'noop',
        data: { n: i + k },
        opts: { ...options, jobId: `noop.${i + k}` },
      })),
    );
  }
  let done = 0;
  let finished: () => void = () => undefined;
  const drained = new Promise<void>((resolve) => (finished = resolve));
  const started = performance.now();
  const worker = new Worker('ceiling-noop', async () => undefined, { connection, prefix, concurrency });
  worker.on('completed', () => {
    if (++done === jobs) finished();
  });
  await Promise.race([drained, new Promise((r) => setTimeout(r, durationMs))]);
  const seconds = (performance.now() - started) / 1000;
  const counted = done;
  await worker.close(true);
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  console.log(JSON.stringify({ jobs: counted, seconds, jobsPerSecond: counted / seconds }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
