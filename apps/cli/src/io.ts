import { InvalidArgumentError } from 'commander';
import type { FetchFn } from './http-client';

/** What a command may touch of the outside world; main.ts passes the real ones, tests their own. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  fetch?: FetchFn;
  /**
   * The terminal, when stdin and stderr are one: progress bars draw on its
   * output (stderr, so that stdout stays the command's result) and review
   * prompts read its input. Absent, commands neither draw nor ask.
   */
  terminal?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
  /** Aborted when the user interrupts (Ctrl-C). */
  signal?: AbortSignal;
}

/** A failure to report on stderr with a non-zero exit, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** How `weft run` and `weft runs watch` exit: by how the run ended. */
export const EXIT = {
  completed: 0,
  failed: 1,
  canceled: 3,
  /** A review waits and there is no terminal to ask (and no --approve-all). */
  reviewPending: 4,
  /** Ctrl-C: the command stopped following; the run goes on. */
  interrupted: 130,
} as const;

/** A command that ends with a status of its own (not an error to print): runCli returns its code. */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'ExitStatus';
  }
}

export function exitWith(code: number): void {
  if (code !== 0) throw new ExitStatus(code);
}

/** Base URL of the gateway: --url, else WEFT_URL, else the local default. */
export function gatewayUrl(opts: { url?: string }, env: CliIo['env']): string {
  return opts.url ?? (env.WEFT_URL || DEFAULT_URL);
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Commander option parser for integers (`--credits 10`, `--delta -5`). */
export function parseInteger(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('Not an integer.');
  return Number(value);
}
