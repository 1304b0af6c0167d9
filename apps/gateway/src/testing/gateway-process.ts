import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '@weft/devstack';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

export interface GatewayProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every line written to stdout (its JSON log), as they arrive. */
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the process logged that it listens. */
  ready: Promise<void>;
}

/** A real gateway process (apps/gateway/src/main.ts) on a free local port, over the given environment. */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/gateway/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // 'close', not 'exit': by then stdout is read to its end, so `lines` holds every line logged.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const lines: string[] = [];
  const stderr: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('gateway listening')) resolve();
    });
    readline.createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
    void exited.then(({ code }) => reject(new Error(`gateway exited early (${code}): ${stderr.join('\n')}`)));
  });
  ready.catch(() => undefined);
  return { child, url: `http://127.0.0.1:${port}`, lines, exited, ready };
}
