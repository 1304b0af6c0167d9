import { FlowProducer, Queue, Worker, type FlowJob } from 'bullmq';
import { Redis } from 'ioredis';

// The ceiling of bench:runs's provider phase: chains of three no-op jobs
// (child → parent → grandparent) added with BullMQ's FlowProducer, so that
// each job is processed only once the one before it has completed, as the
// three queued nodes of a provider run are. A worker with the real worker's
// light concurrency drains them in a process of its own, on the same Redis.
// The chains are added first (addBulk), then the worker starts and the clock
// runs until every grandparent has completed: every chain is timed whole
// (a clock stopped early would catch mostly children, which come first).
// Prints one JSON line: { chains, seconds, chainsPerSecond }.

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.REDIS_PREFIX ?? 'bench-ceiling-chain';
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const chains = Number(process.env.CHAINS ?? 10_000);
/** A safety stop: chains not done by then are left out of the count. */
const maxMs = Number(process.env.BENCH_MAX_MS ?? 60_000);
const QUEUE = 'ceiling-chain';

function chain(n: number): FlowJob {
  const opts = { removeOnComplete: true, removeOnFail: true };
  return {
    name: 'grandparent',
    queueName: QUEUE,
    data: { n },
    opts: { ...opts, jobId: `gp.${n}` },
    children: [
      {
        name: 'parent',
        queueName: QUEUE,
        data: { n },
        opts: { ...opts, jobId: `p.${n}` },
        children: [{ name: 'child', queueName: QUEUE, data: { n }, opts: { ...opts, jobId: `c.${n}` } }],
      },
    ],
  };
}

async function main() {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const producer = new FlowProducer({ connection, prefix });
  for (let i = 0; i < chains; i += 500) {
    await producer.addBulk(Array.from({ length: Math.min(500, chains - i) }, (_, k) => chain(i + k)));
  }
  let done = 0;
  let finished: () => void = () => undefined;
  const drained = new Promise<void>((resolve) => (finished = resolve));
  const started = performance.now();
  const worker = new Worker(QUEUE, async () => undefined, { connection, prefix, concurrency });
  worker.on('completed', (job) => {
    if (job.name === 'grandparent' && ++done === chains) finished();
  });
  let stop: NodeJS.Timeout | undefined;
  await Promise.race([drained, new Promise((r) => (stop = setTimeout(r, maxMs)))]);
  clearTimeout(stop);
  const seconds = (performance.now() - started) / 1000;
  const counted = done;
  await worker.close(true);
  const queue = new Queue(QUEUE, { connection, prefix });
  await queue.obliterate({ force: true });
  await Promise.all([queue.close(), producer.close()]);
  connection.disconnect();
  console.log(JSON.stringify({ chains: counted, seconds, chainsPerSecond: counted / seconds }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
