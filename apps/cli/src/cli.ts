import { Command, CommanderError } from 'commander';
import { registerAdminCommands } from './commands/admin';
import { HttpError } from './http-client';
import { registerPublishCommand } from './publish';
import { CliError, DEFAULT_URL, type CliIo } from './io';

// The `weft` command. Each command group lives in commands/<group>.ts (or its
// own folder, like publish/) and exports a register function added below; every
// command gets its I/O through `io`, so tests run it in-process.

export function createProgram(io: CliIo): Command {
  const program = new Command('weft')
    .description('Weft: run AI agents and apps behind an HTTP API')
    .option('--url <url>', `gateway base URL (default: $WEFT_URL or ${DEFAULT_URL})`)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  // Sub-commands copy exitOverride and the output settings from their parent when created.
  registerAdminCommands(program, io);
  registerPublishCommand(program, io);

  return program;
}

/** Runs `weft <argv...>` and resolves to the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    await createProgram(io).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode; // commander has already printed the message
    if (err instanceof HttpError || err instanceof CliError) {
      io.stderr(`error: ${err.message}\n`);
      return err instanceof CliError ? err.exitCode : 1;
    }
    io.stderr(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
