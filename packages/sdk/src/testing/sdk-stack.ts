import type { AddressInfo } from 'node:net';
import { clientFlows, startRunStack, type RunStack } from '@weft/gateway';
import { WeftClient } from '../client';
import type { WeftClientOptions } from '../core';
import type { components } from '../generated/openapi';

type Flow = components['schemas']['Flow'];

/** The real gateway and workers (in this process) and a client of a fresh organization. */
export interface SdkStack {
  stack: RunStack;
  baseUrl: string;
  apiKey: string;
  client: WeftClient;
  /** Another organization's client on the same gateway. */
  newClient(options?: WeftClientOptions): Promise<WeftClient>;
  close(): Promise<void>;
}

export async function startSdkStack(
  env: Record<string, string> = {},
  worker: Parameters<typeof startRunStack>[1] = {},
): Promise<SdkStack> {
  const stack = await startRunStack(env, worker);
  const baseUrl = `http://127.0.0.1:${(stack.gw.server.address() as AddressInfo).port}`;
  const newClient = async (options: WeftClientOptions = {}) => {
    const { apiKey } = await stack.gw.createOrg('SDK org', 1000);
    return new WeftClient({ baseUrl, apiKey, follow: { pollMinMs: 50, pollMaxMs: 200 }, ...options });
  };
  const { apiKey } = await stack.gw.createOrg('SDK org', 1000);
  return {
    stack,
    baseUrl,
    apiKey,
    client: new WeftClient({ baseUrl, apiKey, follow: { pollMinMs: 50, pollMaxMs: 200 } }),
    newClient,
    close: () => stack.close(),
  };
}

/** Publishes an agent with `flow` through the typed client (private unless told); returns its id and name. */
export async function createAgent(
  client: WeftClient,
  name: string,
  flow: Flow,
  visibility: components['schemas']['FlowVisibility'] = 'private',
): Promise<{ id: string; name: string }> {
  const { data, error, response } = await client.api.POST('/agents', {
    body: { name, description: `${name} (test)`, visibility, flow },
  });
  if (!data) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** The flows the clients' tests publish as agents. */
export const flows = clientFlows;
