import { spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from '@weft/testing';
import type { CliStack } from './cli-stack';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'weft.js');

/** A `weft` command in a pseudo-terminal, as a test drives and reads it. */
export interface TerminalCommand {
  /** Everything the terminal showed so far (stdout and stderr both go to it). */
  screen(): string;
  /** Waits until the screen shows `text` after what `since` was, and returns the new length. */
  waitFor(text: string | RegExp, since?: number): Promise<number>;
  type(keys: string): void;
  exited: Promise<number | null>;
  kill(): void;
}

/**
 * `weft <args>` installed (bin/weft.js), against `cli`'s gateway, in a
 * pseudo-terminal of 120 columns (util-linux `script`).
 */
export function inTerminal(cli: CliStack, args: string[]): TerminalCommand {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', `stty cols 120 rows 40; exec ${quoted}`, '/dev/null'], {
    env: { ...process.env, WEFT_URL: cli.url, WEFT_API_KEY: cli.apiKey, TERM: 'xterm' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    screen: () => output,
    async waitFor(text, since = 0) {
      await waitFor(
        `the terminal to show ${text}`,
        () => {
          const seen = output.slice(since);
          return typeof text === 'string' ? seen.includes(text) : text.test(seen);
        },
        { timeoutMs: 20_000 },
      );
      return output.length;
    },
    type: (keys) => void child.stdin.write(keys),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
