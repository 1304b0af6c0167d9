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
}

/** A real worker process (apps/worker/src/main.ts) over the given environment. */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('worker started')) resolve();
    });
    readline.createInterface({ input: child.stderr! }).on('line', () => undefined);
    void exited.then(({ code }) => reject(new Error(`worker exited early (${code})`)));
  });
  ready.catch(() => undefined);
  return { child, exited, ready };
}
