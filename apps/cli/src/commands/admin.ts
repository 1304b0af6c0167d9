import type { Command } from 'commander';
import { createHttpClient, type HttpClient } from '../http-client';
import { CliError, gatewayUrl, parseInteger, printJson, type CliIo } from '../io';

// `weft admin ...`: the operator endpoints (docs/api.md#admin) over HTTP.

interface AdminOptions {
  url?: string;
  adminToken?: string;
}

function adminClient(cmd: Command, io: CliIo): HttpClient {
  const opts = cmd.optsWithGlobals<AdminOptions>();
  const token = opts.adminToken ?? (io.env.WEFT_ADMIN_TOKEN || io.env.ADMIN_TOKEN);
  if (!token) throw new CliError('An admin token is required: pass --admin-token or set WEFT_ADMIN_TOKEN');
  return createHttpClient({
    baseUrl: gatewayUrl(opts, io.env),
    headers: { authorization: `Bearer ${token}` },
    fetch: io.fetch,
  });
}

const seg = (id: string) => encodeURIComponent(id);

export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program
    .command('admin')
    .description('operator commands (need the gateway ADMIN_TOKEN)')
    .option('--admin-token <token>', 'admin token (default: $WEFT_ADMIN_TOKEN or $ADMIN_TOKEN)');

  const org = admin.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization and its first API key (shown once)')
    .requiredOption('--name <name>', 'display name')
    .option('--credits <n>', 'starting credit balance', parseInteger)
    .action(async (opts: { name: string; credits?: number }, cmd: Command) => {
      const body = opts.credits === undefined ? { name: opts.name } : { name: opts.name, credits: opts.credits };
      printJson(io, await adminClient(cmd, io).post('/admin/organizations', body));
    });

  const key = admin.command('key').description('API keys');
  key
    .command('create')
    .description('issue another API key for an organization (shown once)')
    .requiredOption('--org <id>', 'organization id')
    .option('--name <name>', 'label for the key')
    .action(async (opts: { org: string; name?: string }, cmd: Command) => {
      const body = opts.name === undefined ? {} : { name: opts.name };
      printJson(io, await adminClient(cmd, io).post(`/admin/organizations/${seg(opts.org)}/api-keys`, body));
    });
  key
    .command('revoke')
    .description('revoke an API key; it stops working at once')
    .argument('<key_id>', 'id of the key (not the key itself)')
    .action(async (keyId: string, _opts: unknown, cmd: Command) => {
      await adminClient(cmd, io).delete(`/admin/api-keys/${seg(keyId)}`);
      printJson(io, { id: keyId, revoked: true });
    });

  const credits = admin.command('credits').description('credit balances');
  credits
    .command('add')
    .description('add credits to an organization (a negative delta removes them)')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--delta <n>', 'credits to add, negative to remove', parseInteger)
    .action(async (opts: { org: string; delta: number }, cmd: Command) => {
      printJson(
        io,
        await adminClient(cmd, io).post(`/admin/organizations/${seg(opts.org)}/credits`, { delta: opts.delta }),
      );
    });
}
