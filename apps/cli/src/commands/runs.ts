import { Option, type Command } from 'commander';
import { WeftApiError, type AnyRun, type RunKind, type WeftClient } from '@weft/sdk';
import { CliError, exitWith, parseInteger, printJson, type CliIo } from '../io';
import { superviseRun } from '../run/supervise';
import { sdkClient, withApiKey } from '../sdk-client';

// `weft runs list|get|cancel|watch`: agent runs and app runs, found by id whichever they are.

/** The run with this id: an agent run, else an app run. */
async function findRun(client: WeftClient, runId: string): Promise<AnyRun> {
  for (const runs of [client.runs, client.appRuns]) {
    try {
      return await runs.get(runId);
    } catch (err) {
      if (!(err instanceof WeftApiError && err.status === 404)) throw err;
    }
  }
  throw new CliError(`No run with id ${runId} in this organization`);
}

const kindOf = (run: AnyRun): RunKind => ('app_id' in run ? 'app' : 'agent');

export function registerRunsCommands(program: Command, io: CliIo): void {
  const runs = withApiKey(program.command('runs').description('agent runs and app runs of your organization'));

  runs
    .command('list')
    .description('list runs, newest first (agent runs, or app runs with --app)')
    .addOption(
      new Option('--status <status>', 'only runs in this state').choices([
        'in_progress',
        'completed',
        'failed',
        'canceled',
      ]),
    )
    .option('--app', 'list app runs instead of agent runs')
    .option('--external-id <id>', 'only the run with this external_id')
    .option('-n, --limit <n>', 'at most this many (default 20)', parseInteger, 20)
    .option('--json', 'print JSON')
    .action(
      async (
        opts: { status?: never; app?: boolean; externalId?: string; limit: number; json?: boolean },
        cmd: Command,
      ) => {
        const client = sdkClient(cmd, io);
        const query = {
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.externalId ? { external_id: opts.externalId } : {}),
        };
        const listed: Record<string, unknown>[] = [];
        const source = opts.app ? client.appRuns.list(query) : client.runs.list(query);
        for await (const run of source) {
          listed.push(run);
          if (listed.length >= opts.limit) break;
        }
        if (opts.json) return printJson(io, listed);
        for (const run of listed) {
          const of = (run.agent_id ?? run.app_id) as string;
          const progress = `${Math.round(((run.progress as number) ?? 0) * 100)}%`;
          io.stdout(
            `${run.id}  ${String(run.status).padEnd(11)} ${progress.padStart(4)}  ${run.created_at}  ${opts.app ? 'app' : 'agent'} ${of}\n`,
          );
        }
      },
    );

  runs
    .command('get')
    .description('print a run (agent or app run) as JSON')
    .argument('<run-id>')
    .action(async (runId: string, _opts: unknown, cmd: Command) => {
      printJson(io, await findRun(sdkClient(cmd, io), runId));
    });

  runs
    .command('cancel')
    .description('cancel a run that is still in progress (exit status 3 when it had already ended)')
    .argument('<run-id>')
    .action(async (runId: string, _opts: unknown, cmd: Command) => {
      const client = sdkClient(cmd, io);
      const run = await findRun(client, runId);
      const canceled = await client.cancel({ kind: kindOf(run), id: run.id });
      printJson(io, { id: run.id, canceled, ...(canceled ? {} : { status: (await findRun(client, runId)).status }) });
      if (!canceled) exitWith(3);
    });

  runs
    .command('watch')
    .description(
      'follow a run until it ends: progress, review prompts on a terminal, downloads with --out; ' +
        'exit status as for `weft run`',
    )
    .argument('<run-id>')
    .option('-o, --out <dir>', 'download the output files there once completed')
    .option('--json', 'print the final run as JSON; no progress bar, no prompts')
    .option('--approve-all', 'approve every review as proposed, without asking')
    .action(async (runId: string, opts: { out?: string; json?: boolean; approveAll?: boolean }, cmd: Command) => {
      const client = sdkClient(cmd, io);
      const run = await findRun(client, runId);
      exitWith(
        await superviseRun(
          io,
          client,
          { json: Boolean(opts.json), out: opts.out ?? false, approveAll: Boolean(opts.approveAll) },
          (wait) => client.wait(run, wait),
        ),
      );
    });
}
