import { randomUUID } from 'node:crypto';
import { Option, type Command } from 'commander';
import { resolveTarget } from '@weft/sdk';
import { exitWith, type CliIo } from '../io';
import { sdkClient, withApiKey } from '../sdk-client';
import { collectInput, commandExternalId, sdkInputs, type CliInput } from './run-inputs';
import { superviseRun } from './supervise';
import { readTextFileInputs, textInputIds } from './text-file-inputs';

interface RunCommandOptions {
  input?: CliInput[];
  kind?: 'agent' | 'app';
  externalId?: string;
  new?: boolean;
  out: string | false;
  json?: boolean;
  approveAll?: boolean;
}

const HELP = `
Inputs:
  --input topic=tea            text
  --input photo=@photo.png     a file, uploaded first (repeat the id for several files)
  --input subtitles=@subs.srt  for an input that takes text: the file's content (UTF-8)
  --input 'brand:={"name": "Acme", "colors": ["#0a3d62"]}'   a value as JSON
  --input note=@@home          text that starts with @ (here "@home")

Running twice:
  The run's external_id is derived from the agent or app, the inputs and the
  files' contents, so the same command run again (after a crash, a timeout or
  Ctrl-C) follows the run it started instead of starting another. --new starts a
  fresh run of the same inputs; --external-id sets the key yourself.

Reviews:
  On a terminal each review is shown and asked: approve as is, edit the prompts,
  keep a subset, retry, or decide later. Without a terminal (or with --json) a
  review stops the command with exit status 4 unless --approve-all is given.

Exit status: 0 completed, 1 failed (or any error), 3 canceled, 4 waiting for a
review nobody can answer here, 130 interrupted (the run goes on).

Examples:
  weft run "Post idea with review" --input topic=tea
  weft run "Square and portrait crops" --input photo=@photo.jpg --out crops/
  weft run 0195a3b0-... --input text=hello --json --approve-all`;

export function registerRunCommand(program: Command, io: CliIo): void {
  withApiKey(
    program
      .command('run')
      .description(
        'run an agent or app: upload the files, start the run, show its progress, ask its reviews, download its outputs',
      )
      .argument('<agent-or-app>', 'id or exact name of an agent or app')
      .option('-i, --input <id=value>', 'an input: id=text, id=@file or id:=json (repeatable)', collectInput)
      .addOption(
        new Option('--kind <kind>', 'what the name names, when both an agent and an app have it').choices([
          'agent',
          'app',
        ]),
      )
      .option('--external-id <id>', 'idempotency key of the run (default: derived from the command and file contents)')
      .option('--new', 'start a new run even if the same command started one before')
      .option('-o, --out <dir>', 'where to download the output files', '.')
      .option('--no-download', 'do not download the output files')
      .option('--json', 'print the final run (and downloads) as JSON on stdout; no progress bar, no prompts')
      .option('--approve-all', 'approve every review as proposed, without asking'),
  )
    .addHelpText('after', HELP)
    .action(async (targetArg: string, opts: RunCommandOptions & { download: boolean }, cmd: Command) => {
      const client = sdkClient(cmd, io);
      const target = await resolveTarget(client, targetArg, opts.kind);
      const given = opts.input ?? [];
      const inputs = given.some((i) => i.kind === 'file')
        ? await readTextFileInputs(given, await textInputIds(client, target))
        : given;
      const externalId =
        opts.externalId ?? (opts.new ? `weft-cli:${randomUUID()}` : await commandExternalId(target, inputs));
      const code = await superviseRun(
        io,
        client,
        {
          json: Boolean(opts.json),
          out: opts.download === false ? false : opts.out,
          approveAll: Boolean(opts.approveAll),
        },
        (wait, progress) =>
          client.run(target.id, sdkInputs(inputs), {
            ...wait,
            kind: target.kind,
            externalId,
            onCreated: (run, { created }) =>
              progress.note(
                created
                  ? `run ${run.id} of ${target.kind} "${target.name}" started`
                  : `following run ${run.id}, started before with the same external_id (--new starts another)`,
              ),
          }),
      );
      exitWith(code);
    });
}
