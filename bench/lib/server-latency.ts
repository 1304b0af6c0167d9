// The gateway's own account of a phase: its request-duration histogram
// (GET /metrics), read before and after, as a share of requests within each
// bound. Beside the load generator's figure it tells the time the gateway
// spent on a request from the time the request spent reaching it or coming
// back (scheduling on a busy machine, the generator's own event loop).

const BUCKET = /^weft_http_request_duration_seconds_bucket\{(.*)\} (\d+(?:\.\d+)?)$/;

async function buckets(base: string, route: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = BUCKET.exec(line);
    if (!m || !m[1]!.includes(`route="${route}"`)) continue;
    const le = /le="([^"]+)"/.exec(m[1]!)![1]!;
    counts.set(le, (counts.get(le) ?? 0) + Number(m[2]));
  }
  return counts;
}

export interface ServerLatency {
  /** Requests the gateway served on the route during the phase. */
  total: number;
  /** Share of them it served within each bound (ms). */
  within: Record<number, number>;
}

/** Runs `phase` and returns the gateway's request durations on `route` meanwhile. */
export async function withServerLatency<T>(
  base: string,
  route: string,
  phase: () => Promise<T>,
): Promise<[T, ServerLatency]> {
  const before = await buckets(base, route);
  const result = await phase();
  const after = await buckets(base, route);
  const count = (le: string) => (after.get(le) ?? 0) - (before.get(le) ?? 0);
  const total = count('+Inf');
  const within: Record<number, number> = {};
  for (const ms of [5, 10, 25]) within[ms] = count(String(ms / 1000)) / Math.max(1, total);
  return [result, { total, within }];
}

export function describeServerLatency(s: ServerLatency): string {
  const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
  return `${s.total} requests: ${pct(s.within[5]!)} within 5 ms, ${pct(s.within[10]!)} within 10 ms, ${pct(s.within[25]!)} within 25 ms`;
}
