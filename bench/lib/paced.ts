import http from 'node:http';

// A constant-arrival-rate load generator (as wrk2 or k6's constant-arrival-rate):
// requests leave at evenly spaced instants whatever the answers do, and each
// latency is measured from the instant the request was due, so a stall shows
// up in the figures instead of silently lowering the rate. autocannon's
// `overallRate` instead sends each second's quota in a burst at the start of
// the second, which measures bursts of N requests, not N requests per second.

export interface PacedOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The request body, built per request (POST). */
  body?: () => string;
  /** The path, built per request (default: the URL's). */
  path?: () => string;
  rate: number;
  durationS: number;
  /** Sockets at most (default 50). */
  connections?: number;
}

export interface PacedResult {
  /** Answered requests per second over the run. */
  rps: number;
  total: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
}

export async function paced(o: PacedOptions): Promise<PacedResult> {
  const url = new URL(o.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections ?? 50 });
  const latencies: number[] = [];
  const counts = { ok: 0, non2xx: 0, errors: 0 };
  const inFlight: Promise<void>[] = [];
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const body = o.body?.();
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: o.method ?? 'GET',
          path: o.path?.() ?? url.pathname + url.search,
          agent,
          headers: { ...o.headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            if (res.statusCode! >= 200 && res.statusCode! < 300) counts.ok++;
            else counts.non2xx++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        counts.errors++;
        resolve();
      });
      req.end(body);
    });

  const total = Math.round(o.rate * o.durationS);
  const interval = 1000 / o.rate;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(due));
  }
  await Promise.all(inFlight);
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    rps: (counts.ok + counts.non2xx) / elapsedS,
    total,
    '2xx': counts.ok,
    non2xx: counts.non2xx,
    errors: counts.errors,
    p50: Math.round(at(0.5) * 10) / 10,
    p99: Math.round(at(0.99) * 10) / 10,
  };
}
