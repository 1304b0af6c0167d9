import { Command, CommanderError } from 'commander';
import { WeftError } from '@weft/sdk';
import { registerAdminCommands } from './commands/admin';
import { registerAssetsCommands } from './commands/assets';
import { registerCatalogCommands } from './commands/catalog';
import { registerRunsCommands } from './commands/runs';
import { HttpError } from './http-client';
import { registerPublishCommand } from './publish';
import { CliError, DEFAULT_URL, ExitStatus, type CliIo } from './io';
import { registerRunCommand } from './run/command';

// The `weft` command. Each command group lives in commands/<group>.ts (or its
// own folder, like publish/ and run/) and exports a register function added
// below; every command gets its I/O through `io`, so tests run it in-process.
// The commands of an organization (run, runs, assets, agents, apps) use
// @weft/sdk; admin and publish keep their small HTTP client (http-client.ts):
// the admin routes take the operator's token, and publish compares catalog
// files with what exists, which the SDK's verbs do not cover.

export function createProgram(io: CliIo): Command {
  const program = new Command('weft')
    .description('Weft: run AI agents and apps behind an HTTP API')
    .option('--url <url>', `gateway base URL (default: $WEFT_URL or ${DEFAULT_URL})`)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  // Sub-commands copy exitOverride and the output settings from their parent when created.
  registerRunCommand(program, io);
  registerRunsCommands(program, io);
  registerAssetsCommands(program, io);
  registerCatalogCommands(program, io);
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
    if (err instanceof ExitStatus) return err.code; // the command has said why
    // The SDK's errors say what failed and why (status and detail, or the connection); no stack needed.
    if (err instanceof HttpError || err instanceof CliError || err instanceof WeftError) {
      io.stderr(`error: ${err.message}\n`);
      return err instanceof CliError ? err.exitCode : 1;
    }
    io.stderr(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
