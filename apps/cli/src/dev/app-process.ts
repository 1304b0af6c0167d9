import { spawn } from 'node:child_process';
import readline from 'node:readline';

export interface AppProcess {
  readonly name: string;
  /** Resolves when the process has exited, with how it ended ("code 1", "SIGTERM"). */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  /** SIGTERM, then SIGKILL after `timeoutMs`. Resolves once it has exited. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Runs one of our TypeScript entry points (`node --import tsx <entry>`: one
 * process, no tsx wrapper in between to relay signals) with every output line
 * prefixed by its name. It stays in the launcher's process group, so Ctrl-C
 * reaches it directly and it starts draining at once; the embedded databases
 * run in groups of their own and are stopped only after it has exited.
 */
export function startAppProcess(name: string, entry: string, env: NodeJS.ProcessEnv, cwd: string): AppProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const label = `[${name}]`.padEnd(10);
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    readline.createInterface({ input: stream }).on('line', (line) => out.write(`${label}${line}\n`));
  }

  let exitedFlag = false;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve(signal ?? `code ${code}`);
    });
    child.once('error', (err) => {
      exitedFlag = true;
      resolve(`spawn error: ${err.message}`);
    });
  });

  return {
    name,
    exited,
    hasExited: () => exitedFlag,
    async stop(timeoutMs = 15_000) {
      if (exitedFlag) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
