import type { Command } from 'commander';
import { WeftClient } from '@weft/sdk';
import { CliError, gatewayUrl, type CliIo } from './io';

// The API client of the commands an organization runs (run, runs, assets,
// agents, apps): @weft/sdk with the key of --api-key or $WEFT_API_KEY.

interface ApiOptions {
  url?: string;
  apiKey?: string;
}

export function sdkClient(cmd: Command, io: CliIo): WeftClient {
  const opts = cmd.optsWithGlobals<ApiOptions>();
  const apiKey = opts.apiKey ?? io.env.WEFT_API_KEY;
  if (!apiKey) throw new CliError('An API key is required: pass --api-key or set WEFT_API_KEY');
  return new WeftClient({ baseUrl: gatewayUrl(opts, io.env), apiKey, ...(io.fetch ? { fetch: io.fetch } : {}) });
}

/** Adds --api-key to a command group. */
export function withApiKey(cmd: Command): Command {
  return cmd.option('--api-key <key>', 'API key of the organization (default: $WEFT_API_KEY)');
}
