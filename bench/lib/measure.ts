import autocannon from 'autocannon';
import { paced } from './paced';
import { cpuMicros } from './proc';

// autocannon against one server process, with the CPU time that process
// spent per request (steadier than req/s on a busy machine).

export interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** CPU time the serving process spent per request. */
  cpuUsPerRequest: number;
  errors: number;
  /** Bytes on the wire per response, headers included (autocannon's count; unset when paced). */
  bytesPerResponse?: number;
}

export interface MeasureOptions {
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  /**
   * Requests per second over all connections, evenly spaced (lib/paced.ts:
   * autocannon's own rate sends each second's quota in one burst); unset: as
   * fast as answered, with autocannon.
   */
  overallRate?: number;
  /** Per-request rewrite (e.g. a different path each time). */
  setupRequest?: (req: autocannon.Request) => autocannon.Request;
  /** A 2 s warm-up first lets V8 optimise the hot path; default true. */
  warmUp?: boolean;
}

export async function measure(name: string, serverPid: number, url: string, o: MeasureOptions): Promise<Figures> {
  const base: autocannon.Options = {
    url,
    connections: o.connections,
    headers: o.headers ?? {},
    ...(o.overallRate ? { overallRate: o.overallRate } : {}),
    ...(o.setupRequest ? { requests: [{ setupRequest: o.setupRequest }] } : {}),
  };
  if (o.warmUp !== false) await autocannon({ ...base, duration: 2 });
  const cpuBefore = cpuMicros(serverPid);
  if (o.overallRate) {
    const setup = o.setupRequest;
    const r = await paced({
      url,
      headers: o.headers ?? {},
      rate: o.overallRate,
      durationS: o.durationS,
      connections: o.connections,
      ...(setup ? { path: () => (setup({} as autocannon.Request) as { path: string }).path } : {}),
    });
    const cpu = cpuMicros(serverPid) - cpuBefore;
    return {
      name,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      cpuUsPerRequest: cpu / Math.max(1, r.total),
      errors: r.non2xx + r.errors,
    };
  }
  const r = await autocannon({ ...base, duration: o.durationS });
  const cpu = cpuMicros(serverPid) - cpuBefore;
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUsPerRequest: cpu / Math.max(1, r.requests.total),
    errors: r.non2xx + r.errors + r.timeouts,
    bytesPerResponse: r.throughput.total / Math.max(1, r.requests.total),
  };
}

export function figuresTable(rows: Figures[], ceilingRps: number): string {
  const lines = [
    '| endpoint | req/s | p50 ms | p99 ms | ratio to ceiling | server CPU µs/req | KiB/response | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of rows) {
    lines.push(
      `| ${f.name} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${(f.rps / ceilingRps).toFixed(2)} | ${f.cpuUsPerRequest.toFixed(0)} | ${f.bytesPerResponse === undefined ? '–' : (f.bytesPerResponse / 1024).toFixed(1)} | ${f.errors} |`,
    );
  }
  return lines.join('\n');
}
