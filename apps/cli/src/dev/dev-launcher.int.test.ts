import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '@weft/devstack';
import { createTestEnv, waitFor, type TestEnv } from '@weft/testing';
import { REPO_ROOT } from './dev-config';

// `npm run dev` as a terminal runs it: in a process group of its own, which
// Ctrl-C signals as a whole. Its ports, data folder, embedded PostgreSQL and
// s3rver are the test's own and Redis is the test environment's (own prefix),
// so the shared servers on the default ports are never touched.

jest.setTimeout(240_000);

let env: TestEnv;
const dataDirs: string[] = [];
const launchers: Launcher[] = [];

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  for (const launcher of launchers) launcher.kill();
  for (const dir of dataDirs) {
    stopLeftoverPostgres(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await env?.cleanup();
});

interface Launcher {
  /** Output lines so far, stdout and stderr interleaved as they arrived. */
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Signals the whole process group, as a terminal does on Ctrl-C. */
  signalGroup(signal: NodeJS.Signals): void;
  /** Signals the process started (the launcher, or what runs it), as a relaying parent does. */
  signal(signal: NodeJS.Signals): void;
  kill(): void;
}

/**
 * Runs the command of `npm run dev` itself, with npm's PATH: npm and the shell
 * it starts would only stand between the launcher's exit status and the test
 * (a shell that saw SIGINT ends by it, whatever its child did).
 */
/** `extra` wins over the test's environment; undefined removes a variable. */
function startLauncher(extra: Record<string, string | undefined>): Launcher {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = pkg.scripts.dev!.split(' ');
  const bin = path.join(REPO_ROOT, 'node_modules', '.bin');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    LOG_LEVEL: 'info',
    ...extra,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child: ChildProcess = spawn(command === 'node' ? process.execPath : command!, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  const launcher: Launcher = {
    lines,
    exited,
    signalGroup: (signal) => process.kill(-child.pid!, signal),
    signal: (signal) => child.kill(signal),
    kill() {
      if (!done) process.kill(-child.pid!, 'SIGKILL');
    },
  };
  launchers.push(launcher);
  return launcher;
}

/** A data folder the embedded PostgreSQL (run as the `postgres` user when we are root) can enter. */
function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-dev-launcher-'));
  fs.chmodSync(dir, 0o755);
  dataDirs.push(dir);
  return dir;
}

/** Only after a failed test: a launcher killed outright leaves its PostgreSQL running. */
function stopLeftoverPostgres(dataDir: string): void {
  try {
    const pid = Number(
      fs.readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    if (pid > 0) process.kill(pid, 'SIGQUIT');
  } catch {
    // No server left.
  }
}

function indexOfLine(lines: string[], pattern: RegExp): number {
  return lines.findIndex((line) => pattern.test(line));
}

test('one Ctrl-C, relayed or not, stops the gateway and worker, then the embedded PostgreSQL, and exits 0', async () => {
  const [port, workerPort, postgresPort, s3Port] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const dataDir = newDataDir();
  const launcher = startLauncher({
    PORT: String(port),
    WORKER_HTTP_PORT: String(workerPort),
    WEFT_DATA_DIR: dataDir,
    DATABASE_URL: '',
    WEFT_POSTGRES_PORT: String(postgresPort),
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    S3_ENDPOINT: '',
    WEFT_S3_PORT: String(s3Port),
    // As a user has it: jest.config.js turns the AWS SDK's Node version notice off.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
  });
  const output = () => launcher.lines.join('\n');

  const started = await Promise.race([
    waitFor('the banner', () => launcher.lines.includes('Weft is running.'), { timeoutMs: 180_000 }).then(() => true),
    launcher.exited.then(() => false),
  ]);
  if (!started) throw new Error(`npm run dev exited before its banner:\n${output()}`);
  expect(output()).toContain('postgres: started embedded PostgreSQL');
  expect(launcher.lines).toContain(`  Console    http://127.0.0.1:${port}/console/`);
  // True on Node 20 (docs/development.md#nodejs-versions), so shown; once, not by every process.
  const nodeNotices = launcher.lines.filter((line) => /will require node >=22/.test(line)).length;
  expect(nodeNotices).toBe(Number(process.versions.node.split('.')[0]) < 22 ? 1 : 0);

  // In dev the worker's listener is on loopback, like the gateway.
  const listening = launcher.lines
    .filter((line) => line.startsWith('[worker]'))
    .map((line) => JSON.parse(line.slice('[worker]'.length)) as { msg: string; host?: string; port?: number })
    .find((entry) => entry.msg === 'worker http listening');
  expect(listening).toMatchObject({ host: '127.0.0.1', port: workerPort });
  expect((await fetch(`http://127.0.0.1:${workerPort}/healthz`)).status).toBe(200);

  const signalledAt = launcher.lines.length;
  launcher.signalGroup('SIGINT');
  // A relay (npm through a shell that exec'd the script, tsx's wrapper) sends
  // its copy once it has seen the first: after the launcher has, too.
  await waitFor('the stop to begin', () => launcher.lines.slice(signalledAt).some((l) => /SIGINT: stopping/.test(l)));
  launcher.signal('SIGINT');
  const { code, signal } = await launcher.exited;
  const afterSignal = launcher.lines.slice(signalledAt);

  // The output is part of what is compared so that a failure shows it.
  expect({ code, signal, output: afterSignal.join('\n') }).toEqual({
    code: 0,
    signal: null,
    output: expect.not.stringMatching(/again: exiting without waiting/),
  });
  const appsStopped = indexOfLine(afterSignal, /^\[dev\] +stopped gateway and worker$/);
  const postgresStopped = indexOfLine(afterSignal, /^\[dev\] +postgres: stopped$/);
  expect(appsStopped).toBeGreaterThanOrEqual(0);
  expect(postgresStopped).toBeGreaterThan(appsStopped);
  expect(indexOfLine(afterSignal, /^\[dev\] +stopped services$/)).toBeGreaterThan(postgresStopped);
  // Nothing lost its database while draining.
  const appErrors = afterSignal.filter((line) => /^\[(gateway|worker)\]/.test(line) && /"level":(50|60)/.test(line));
  expect(appErrors).toEqual([]);
  // PostgreSQL shut down by itself, not killed.
  expect(fs.readFileSync(path.join(dataDir, 'postgres', 'postgres.log'), 'utf8')).toMatch(
    /database system is shut down/,
  );
  expect(fs.existsSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'))).toBe(false);
});

test("a taken worker metrics port is named before anything starts, like the gateway's", async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port: workerPort } = holder.address() as net.AddressInfo;
  try {
    const launcher = startLauncher({
      ...env.env,
      PORT: String(await freePort()),
      WORKER_HTTP_PORT: String(workerPort),
      WEFT_DATA_DIR: newDataDir(),
    });
    const { code } = await launcher.exited;
    const output = launcher.lines.join('\n');

    expect(code).toBe(1);
    expect(output).toContain(
      `Port ${workerPort} on 127.0.0.1 is already in use, so the worker's metrics and health listener cannot ` +
        'start there. Stop what uses it (an earlier `npm run dev`?) or choose another port: ' +
        `WORKER_HTTP_PORT=${workerPort + 1} npm run dev (0 picks a free one)`,
    );
    expect(output).not.toMatch(/EADDRINUSE|exited during start-up|^\[(gateway|worker)\]/m);
  } finally {
    holder.close();
  }
});

test('a DATABASE_URL through PgBouncer needs a MIGRATION_DATABASE_URL, said before anything starts', async () => {
  const launcher = startLauncher({
    ...env.env,
    DATABASE_URL: env.pgbouncerDatabaseUrl,
    MIGRATION_DATABASE_URL: undefined,
    PORT: String(await freePort()),
    WORKER_HTTP_PORT: '0',
    WEFT_DATA_DIR: newDataDir(),
  });
  const { code } = await launcher.exited;
  const output = launcher.lines.join('\n');
  expect(code).toBe(1);
  expect(output).toContain(
    'MIGRATION_DATABASE_URL: DATABASE_URL leads through PgBouncer (pgbouncer=true), which keeps no session for ' +
      'migrations: set MIGRATION_DATABASE_URL to the PostgreSQL server itself',
  );
  expect(output).not.toMatch(/^\[(gateway|worker)\]|postgres:/m);
});
