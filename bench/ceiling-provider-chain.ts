import { FlowProducer, Worker, type FlowJob, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import OpenAI from 'openai';

// The bare BullMQ chain bench:providers measures Weft beside: chains of three
// jobs (child → parent → grandparent, so each runs once the one before it has
// completed), each making the same chat completion through the same `openai`
// SDK to the same loopback server, with the previous job's answer as its
// prompt: streamed, with the usage in its last chunk, as Weft's llm nodes ask
// for it (so that a run's event stream carries the text as it comes). One
// process: it adds the chains (in batches, while its worker runs) and executes
// them, as a minimal application of BullMQ would. The clock runs
// from the first add to the last grandparent's completion, after WARM_UP chains
// run the same way unmeasured (JIT, connections), as Weft's phases get a warm-up.
// Prints one JSON line: { chains, seconds, chainsPerSecond, cpuUs (of that span), peakRssBytes }.

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.REDIS_PREFIX ?? 'bench-bare-chain';
const concurrency = Number(process.env.CONCURRENCY ?? 200);
const chains = Number(process.env.CHAINS ?? 2_000);
const warmUp = Number(process.env.WARM_UP ?? 200);
const baseURL = process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:1/v1';
const QUEUE = 'bare-provider-chain';
const BATCH = 50;

function chain(n: number, topic: string): FlowJob {
  const opts = { removeOnComplete: true, removeOnFail: true };
  const job = (name: string, children?: FlowJob[]): FlowJob => ({
    name,
    queueName: QUEUE,
    data: { topic },
    opts: { ...opts, jobId: `${name}.${n}` },
    ...(children ? { children } : {}),
  });
  return job('grandparent', [job('parent', [job('child')])]);
}

async function main() {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const client = new OpenAI({ apiKey: 'sk-bench-double', baseURL, maxRetries: 2, logLevel: 'off' });
  const producer = new FlowProducer({ connection, prefix });
  let done = 0;
  let target = 0;
  let finished: () => void = () => undefined;
  const worker = new Worker(
    QUEUE,
    async (job: Job<{ topic: string }>) => {
      const previous = Object.values(await job.getChildrenValues<string>())[0] ?? job.data.topic;
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: previous }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let answer = '';
      for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
      return answer;
    },
    { connection, prefix, concurrency },
  );
  worker.on('completed', (job) => {
    if (job.name === 'grandparent' && ++done === target) finished();
  });
  await worker.waitUntilReady();
  /** Adds chains [from, to) and resolves once the last of them has completed. */
  const runChains = async (from: number, to: number) => {
    const drained = new Promise<void>((resolve) => (finished = resolve));
    target = to;
    for (let i = from; i < to; i += BATCH) {
      await producer.addBulk(
        Array.from({ length: Math.min(BATCH, to - i) }, (_, k) => chain(i + k, 'a short note about looms')),
      );
    }
    await drained;
  };
  if (warmUp > 0) await runChains(0, warmUp);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await runChains(warmUp, warmUp + chains);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await worker.close();
  await producer.close();
  connection.disconnect();
  console.log(
    JSON.stringify({
      chains,
      seconds,
      chainsPerSecond: chains / seconds,
      cpuUs: cpu.user + cpu.system,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
