import http from 'node:http';

// bench:poll's background load in a process of its own: runs created through
// POST /runs at BENCH_RATE per second, each new run's id sent to the parent
// over IPC. In the load generator's process these creates (and their
// answers) would hold up its event loop, and the paced reads it times would
// count that wait as the gateway's latency.

const base = new URL(process.env.BENCH_BASE_URL!);
const rate = Number(process.env.BENCH_RATE);
const headers = JSON.parse(process.env.BENCH_AUTH_HEADERS!) as Record<string, string>;
const body = JSON.stringify({
  agent_id: process.env.BENCH_AGENT_ID,
  inputs: [{ id: 'topic', value: 'first line\nsecond line' }],
});
const agent = new http.Agent({ keepAlive: true });

function create(): void {
  const req = http.request(base, {
    method: 'POST',
    path: '/runs',
    agent,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.on('response', (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      if (res.statusCode === 201) process.send?.({ id: (JSON.parse(text) as { id: string }).id });
      else console.error(`background create: ${res.statusCode} ${text}`);
    });
  });
  req.on('error', (err) => console.error('background create failed:', err.message));
  req.end(body);
}

/** Until stopped (SIGTERM), or orphaned: the parent's IPC channel closing ends it too. */
async function main() {
  const interval = 1000 / rate;
  let next = performance.now();
  for (;;) {
    create();
    next += interval;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
}

process.on('disconnect', () => process.exit(0));
void main();
