import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Process plumbing the benchmarks share: ports, child processes started from
// TypeScript sources, readiness polling and the CPU time a process has used.

export const ROOT = path.resolve(__dirname, '..', '..');

export { freePort } from '@weft/devstack';

/**
 * The Node.js binary of the processes a benchmark measures (BENCH_NODE; default: the one
 * running the benchmark). The images run Node 22: point it at a Node 22 binary to measure
 * what production runs.
 */
export const MEASURED_NODE = process.env.BENCH_NODE ?? process.execPath;

/**
 * `node --import tsx <entry>` from the repository root with `env` added.
 * Extra `nodeArgs` (e.g. `--cpu-prof`) go before the entry; `ipc` opens an
 * IPC channel (process.send in the child).
 */
export function startTs(entry: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = [], ipc = false): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ipc ? ['ignore', 'ignore', 'inherit', 'ipc'] : ['ignore', 'ignore', 'inherit'],
  });
}

let built: Promise<unknown> | undefined;

/**
 * A process as its container image runs it (infra/docker/Dockerfile's CMD:
 * `node --enable-source-maps dist/<entry>.js`), from dist/ bundled once per
 * benchmark run by scripts/build.ts (about a second). Under tsx the gateway
 * also carries the loader and its transpiled sources: a larger heap for every
 * full collection to mark.
 */
export async function startBuilt(
  entry: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Promise<ChildProcess> {
  built ??= runTsForOutput('scripts/build.ts', {});
  await built;
  return spawn(MEASURED_NODE, [...nodeArgs, '--enable-source-maps', path.join('dist', entry.replace(/\.ts$/, '.js'))], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Stops a child with SIGTERM and waits for it to exit (SIGKILL after `graceMs`). */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function postJson(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU time of a process so far, in microseconds (Linux /proc). */
export function cpuMicros(pid: number): number {
  const fields = statFields(pid);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU time of a process's children that have exited and been waited for
 * (ffmpeg runs of a worker, of the benchmark itself), in microseconds.
 */
export function childrenCpuMicros(pid: number): number {
  const fields = statFields(pid);
  const ticks = Number(fields[13]) + Number(fields[14]);
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}

/** A field of /proc/<pid>/status in bytes (`VmRSS`, `VmHWM`: resident now, and at its peak). */
export function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/**
 * Minor page faults of a process so far (Linux /proc). Each is a fresh page
 * the kernel zeroes and maps: memory the allocator gave back to the system and
 * takes again costs a fault per 4 KiB page touched.
 */
export function minorFaults(pid: number): number {
  return Number(statFields(pid)[7]);
}

/** /proc/<pid>/stat from its fourth field (state) on. */
function statFields(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

/**
 * CPU time of every process named `comm` on this machine (`postgres`, `redis-server`), in µs:
 * the services the benchmark runs against are local. A process that exits between two readings
 * takes its time with it; pooled database connections live through a benchmark phase.
 */
export function cpuMicrosOfCommand(comm: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === comm) total += cpuMicros(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return total;
}

/** The 1/5/15-minute load averages, for the report: figures swing on a shared machine. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** Runs a TypeScript entry to completion and answers its stdout (stderr passes through). */
export async function runTsForOutput(
  entry: string,
  env: NodeJS.ProcessEnv,
  node: string = process.execPath,
): Promise<string> {
  const child = spawn(node, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${entry} exited with ${code}`);
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * CPU time of a process and all its descendants, in µs: those running now and
 * those it has reaped (a PostgreSQL postmaster's exited backends).
 */
export function treeCpuMicros(rootPid: number): number {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parentOf.set(Number(entry), Number(statFields(Number(entry))[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parentOf.get(p)) if (p === rootPid) return true;
    return false;
  };
  let total = childrenCpuMicros(rootPid);
  for (const pid of parentOf.keys()) {
    if (!inTree(pid)) continue;
    try {
      total += cpuMicros(pid);
    } catch {
      // Exited meanwhile.
    }
  }
  return total;
}
