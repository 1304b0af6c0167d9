import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError, gatewayUrl, printJson, type CliIo } from '../io';
import { publishFile, type PublishReport } from './publish';

interface PublishOptions {
  url?: string;
  apiKey?: string;
}

/** Files named on the command line; a directory stands for its *.json files. */
function expandFiles(args: string[]): string[] {
  return args.flatMap((arg) => {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(arg);
    } catch {
      throw new CliError(`No such file or directory: ${arg}`);
    }
    if (!stat.isDirectory()) return [arg];
    return fs
      .readdirSync(arg)
      .filter((entry) => entry.endsWith('.json'))
      .sort()
      .map((entry) => path.join(arg, entry));
  });
}

export function registerPublishCommand(program: Command, io: CliIo): void {
  program
    .command('publish')
    .description(
      'publish catalog files (an agent, its flow and its apps; see catalog/README.md) to your organization; ' +
        're-publishing an unchanged file changes nothing',
    )
    .argument('<files...>', 'catalog files, or directories of them')
    .option('--api-key <key>', 'API key of the organization (default: $WEFT_API_KEY)')
    .action(async (args: string[], _opts: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<PublishOptions>();
      const apiKey = opts.apiKey ?? io.env.WEFT_API_KEY;
      if (!apiKey) throw new CliError('An API key is required: pass --api-key or set WEFT_API_KEY');
      const baseUrl = gatewayUrl(opts, io.env);
      const files = expandFiles(args);
      if (files.length === 0) throw new CliError('No catalog files found');

      const reports: PublishReport[] = [];
      const failures: string[] = [];
      // One broken file does not stop the others; the exit code still says something failed.
      for (const file of files) {
        try {
          const report = await publishFile(baseUrl, apiKey, file, { fetch: io.fetch });
          for (const warning of report.warnings) io.stderr(`warning: ${file}: ${warning}\n`);
          reports.push(report);
        } catch (err) {
          failures.push(`${file}: ${(err as Error).message}`);
        }
      }
      printJson(io, reports);
      if (failures.length > 0) throw new CliError(`could not publish:\n${failures.join('\n')}`);
    });
}
