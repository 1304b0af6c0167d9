import type { AddressInfo } from 'node:net';
import { clientFlows, startRunStack, type RunStack } from '@weft/gateway';
import { WeftClient, type components } from '@weft/sdk';
import { runCli } from '../cli';

// Test helpers of the commands built on @weft/sdk: the real gateway and workers,
// an organization, and `weft ...` run in-process with its output captured.

type Flow = components['schemas']['Flow'];

export interface CliStack {
  stack: RunStack;
  url: string;
  apiKey: string;
  client: WeftClient;
  weft(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  agent(name: string, flow: Flow, extra?: { estimated_cost?: number }): Promise<{ id: string; name: string }>;
  close(): Promise<void>;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export async function startCliStack(
  credits = 1000,
  worker: Parameters<typeof startRunStack>[1] = {},
): Promise<CliStack> {
  const stack = await startRunStack({}, worker);
  const url = `http://127.0.0.1:${(stack.gw.server.address() as AddressInfo).port}`;
  const { apiKey } = await stack.gw.createOrg('CLI org', credits);
  const client = new WeftClient({ baseUrl: url, apiKey });
  return {
    stack,
    url,
    apiKey,
    client,
    async weft(args, env = {}) {
      let stdout = '';
      let stderr = '';
      const code = await runCli(args, {
        env: { WEFT_URL: url, WEFT_API_KEY: apiKey, ...env },
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
      });
      return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T };
    },
    async agent(name, flow, extra = {}) {
      const { data, error } = await client.api.POST('/agents', {
        body: { name, description: name, visibility: 'private', flow, ...extra },
      });
      if (!data) throw new Error(`POST /agents: ${JSON.stringify(error)}`);
      return data;
    },
    close: () => stack.close(),
  };
}

/** The flows the clients' tests publish as agents. */
export const flows = clientFlows;
