import type { Command } from 'commander';
import { resolveTarget } from '@weft/sdk';
import { parseInteger, printJson, type CliIo } from '../io';
import { sdkClient, withApiKey } from '../sdk-client';

// `weft agents list|get` and `weft apps list|get`.

interface ListOptions {
  search?: string;
  public?: boolean;
  tag?: string[];
  limit: number;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCatalogCommands(program: Command, io: CliIo): void {
  for (const kind of ['agent', 'app'] as const) {
    const group = withApiKey(
      program
        .command(`${kind}s`)
        .description(kind === 'agent' ? 'agents (published flows)' : 'apps (curated faces of agents)'),
    );
    const list = group
      .command('list')
      .description(`list ${kind}s: your organization's own, or with --public every public one`)
      .option('--search <text>', 'a part of the name (any letter case)')
      .option('--public', "every organization's public ones")
      .option('-n, --limit <n>', 'at most this many (default 50)', parseInteger, 50)
      .option('--json', 'print JSON');
    if (kind === 'agent') list.option('--tag <tag>', 'carrying this tag (repeatable: all of them)', collect);
    list.action(async (opts: ListOptions, cmd: Command) => {
      const client = sdkClient(cmd, io);
      const query = {
        ...(opts.search ? { search: opts.search } : {}),
        ...(opts.public ? { visibility: ['public' as const] } : {}),
        ...(opts.tag ? { tags: opts.tag } : {}),
      };
      const items: { id: string; name: string; visibility?: string; estimated_cost?: number }[] = [];
      for await (const item of kind === 'agent' ? client.agents.list(query) : client.apps.list(query)) {
        items.push(item);
        if (items.length >= opts.limit) break;
      }
      if (opts.json) return printJson(io, items);
      for (const item of items) {
        io.stdout(`${item.id}  ${item.name}  (${item.visibility ?? ''}, ${item.estimated_cost ?? 0} credits)\n`);
      }
    });
    group
      .command('get')
      .description(`print a ${kind} (its inputs and outputs) as JSON`)
      .argument(`<${kind}>`, 'id or exact name')
      .action(async (idOrName: string, _opts: unknown, cmd: Command) => {
        const client = sdkClient(cmd, io);
        const target = await resolveTarget(client, idOrName, kind);
        printJson(io, kind === 'agent' ? await client.agents.get(target.id) : await client.apps.get(target.id));
      });
  }
}
