import { randomUUID } from 'node:crypto';

// bench:events' ceiling for webhook deliveries, in a process of its own: bare
// HTTP POSTs with fetch (undici, as the worker's guarded fetch), BENCH_POSTS
// in all, BENCH_CONCURRENCY at once, each the body and signature headers of a
// delivery the receiver got, with a fresh `webhook-id` so that the receiver
// counts each. No database, no queue, no signing: what a process can post to
// that receiver. Sends `{done: {errors}}` to the parent and exits.

interface Start {
  url: string;
  posts: number;
  concurrency: number;
  headers: Record<string, string>;
  body: string;
}

async function run(o: Start): Promise<number> {
  let next = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.posts) {
        next++;
        try {
          const res = await fetch(o.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...o.headers, 'webhook-id': randomUUID() },
            body: o.body,
          });
          await res.body?.cancel().catch(() => undefined);
          if (res.status < 200 || res.status >= 300) errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return errors;
}

process.once('message', (start: Start) => {
  void run(start).then((errors) => {
    process.send?.({ done: { errors } }, () => process.exit(0));
  });
});
process.on('disconnect', () => process.exit(0));
