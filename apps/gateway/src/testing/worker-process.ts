import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

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
    child.once('exit', (code, signal) => resolve({ code, signal })),
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
