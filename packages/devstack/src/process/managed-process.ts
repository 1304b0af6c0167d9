import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { DevstackError } from '../errors';
import { delay } from '../tcp';

/**
 * A server process we started (postgres, redis-server). It gets its own
 * process group so that Ctrl-C in the terminal reaches only the launcher, which
 * then stops the applications first and the databases last. Its output goes to
 * a log file, not a pipe, so a chatty server never blocks on a full pipe.
 */
export interface ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  /** Sends `signal`, waits up to `timeoutMs`, then SIGKILL. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

export interface StartProcessOptions {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  cwd?: string;
  uid?: number;
  gid?: number;
  env?: NodeJS.ProcessEnv;
  /** The signal that asks this server for a clean shutdown (also sent if Node exits first). */
  stopSignal: NodeJS.Signals;
}

// Safety net: if the owning Node process exits without calling stop() (an
// uncaught error, process.exit elsewhere), still ask our servers to shut down.
// This cannot help against SIGKILL; a server left behind then is found on its
// port by the next run and reused.
const running = new Set<{ child: ChildProcess; stopSignal: NodeJS.Signals }>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const { child, stopSignal } of running) child.kill(stopSignal);
  });
}

export function startProcess(options: StartProcessOptions): ManagedProcess {
  installExitHook();
  const logFd = fs.openSync(options.logFile, 'a');
  const spawnOptions: SpawnOptions = {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', logFd, logFd],
    uid: options.uid,
    gid: options.gid,
  };
  const child = spawn(options.command, options.args, spawnOptions);
  fs.closeSync(logFd);

  const entry = { child, stopSignal: options.stopSignal };
  running.add(entry);
  let exitedFlag = false;
  const exited = new Promise<string>((resolve) => {
    const done = (result: string) => {
      exitedFlag = true;
      running.delete(entry);
      resolve(result);
    };
    child.once('exit', (code, signal) => done(signal ?? String(code)));
    child.once('error', (err) => done(`spawn error: ${err.message}`));
  });

  return {
    name: options.name,
    logFile: options.logFile,
    exited,
    hasExited: () => exitedFlag,
    async stop(signal = options.stopSignal, timeoutMs = 30_000) {
      if (exitedFlag) return;
      child.kill(signal);
      // The timer must not outlive the process, or it would hold the event loop open.
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last lines of a log file, for error messages when a server fails to start. */
export function tailOfFile(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log output)';
  }
}

/**
 * Polls `isReady` until it returns true, failing early with the server's log if
 * the process exits meanwhile.
 */
export async function waitUntilReady(
  proc: ManagedProcess,
  isReady: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      const result = await proc.exited;
      throw new DevstackError(
        `${proc.name} exited during start-up (${result}). Last lines of ${proc.logFile}:\n${tailOfFile(proc.logFile)}`,
      );
    }
    if (await isReady()) return;
    await delay(100);
  }
  await proc.stop();
  throw new DevstackError(
    `${proc.name} did not become ready within ${timeoutMs / 1000}s. Last lines of ${proc.logFile}:\n${tailOfFile(proc.logFile)}`,
  );
}
