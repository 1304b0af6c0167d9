import { InvalidArgumentError } from 'commander';
import type { FetchFn } from './http-client';

/** What a command may touch of the outside world; main.ts passes the real ones, tests their own. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  fetch?: FetchFn;
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
