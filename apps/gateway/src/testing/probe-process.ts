import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/**
 * Runs `script` in a fresh Node process (`node [nodeArgs] --require tsx/cjs -e script ...args`)
 * from the repository root, and answers its stdout. Jest keeps a module registry of its
 * own, so what a process does as it loads (which packages, which V8 flags) is checked
 * in one of these. The environment holds just enough for the gateway's and worker's
 * configuration to be valid; nothing connects.
 *
 * Probes `require()` what they load, so tsx's CommonJS hook is all they need:
 * `--import tsx` would also start its ES module loader on a thread of its own,
 * a cost every probe would pay on a machine that may be busy.
 */
export async function runProbe(
  script: string,
  { nodeArgs = [], args = [], env = {} }: { nodeArgs?: string[]; args?: string[]; env?: Record<string, string> },
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeArgs, '--require', 'tsx/cjs', '-e', script, ...args],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: 'postgresql://u@127.0.0.1:1/db',
        REDIS_URL: 'redis://127.0.0.1:1',
        ...env,
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return stdout;
}
