import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { GatewayConfig } from '../config';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The services of a gateway under test (its database, Redis prefix and bucket), as a worker process's environment. */
export function servicesEnvOf(c: GatewayConfig): Record<string, string> {
  return {
    DATABASE_URL: c.DATABASE_URL,
    REDIS_URL: c.REDIS_URL ?? '',
    REDIS_CLUSTER_NODES: c.REDIS_CLUSTER_NODES.join(','),
    REDIS_PREFIX: c.REDIS_PREFIX,
    S3_ENDPOINT: c.S3_ENDPOINT ?? '',
    S3_BUCKET: c.S3_BUCKET,
    S3_REGION: c.S3_REGION,
    S3_ACCESS_KEY_ID: c.S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: c.S3_SECRET_ACCESS_KEY,
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the process logged that it started. */
  ready: Promise<void>;
  /** Every line written to stdout (its JSON log), as they arrive. */
  lines: string[];
  /** The port of its HTTP listener (/metrics, /healthz, /readyz), once it listens. */
  httpPort: Promise<number>;
}

/** A real worker process (apps/worker/src/main.ts) over the given environment. */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: REPO_ROOT,
    // A free port for the HTTP listener unless the test names one: several workers run at once.
    env: { ...process.env, LOG_LEVEL: 'info', WORKER_HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': by then stdout is read to its end, so `lines` holds every line logged.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let listening: (port: number) => void = () => undefined;
  let notListening: (err: Error) => void = () => undefined;
  const httpPort = new Promise<number>((resolve, reject) => {
    listening = resolve;
    notListening = reject;
  });
  const lines: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('worker started')) resolve();
      if (line.includes('worker http listening')) listening((JSON.parse(line) as { port: number }).port);
    });
    readline.createInterface({ input: child.stderr! }).on('line', () => undefined);
    void exited.then(({ code }) => {
      reject(new Error(`worker exited early (${code})`));
      notListening(new Error(`worker exited before listening (${code})`));
    });
  });
  ready.catch(() => undefined);
  httpPort.catch(() => undefined);
  return { child, exited, ready, httpPort, lines };
}
