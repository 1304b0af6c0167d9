import type { AddressInfo } from 'node:net';
import { startRunStack, type RunStack } from '@weft/gateway';
import { WeftClient, type WeftClientOptions } from '../client';
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

export async function startSdkStack(env: Record<string, string> = {}): Promise<SdkStack> {
  const stack = await startRunStack(env);
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

/** Publishes an agent with `flow` through the typed client; returns its id and name. */
export async function createAgent(client: WeftClient, name: string, flow: Flow): Promise<{ id: string; name: string }> {
  const { data, error, response } = await client.api.POST('/agents', {
    body: { name, description: `${name} (test)`, visibility: 'private', flow },
  });
  if (!data) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

export const flows = {
  /** Text in, its lines out. */
  split: (): Flow => ({
    nodes: [
      { id: 'text', type: 'text_input', description: 'Lines', required: true },
      { id: 'lines', type: 'text_split', inputs: { text: 'text' } },
      { id: 'first', type: 'list_selector', params: { index: 0 }, inputs: { list: 'lines' } },
    ],
    outputs: [{ id: 'first', type: 'text', description: 'The first line' }],
  }),
  /** A topic and a tone joined, then a review. */
  review: (): Flow => ({
    nodes: [
      { id: 'topic', type: 'text_input', description: 'Topic', required: true },
      { id: 'tone', type: 'text_input', description: 'Tone', required: false, params: { default: 'friendly' } },
      { id: 'join', type: 'prompt_concatenate', params: { separator: ' / ' }, inputs: { parts: ['topic', 'tone'] } },
      { id: 'check', type: 'human_review', inputs: { value: 'join' } },
    ],
    outputs: [{ id: 'check', type: 'text', description: 'Approved prompt' }],
  }),
  /** An image cropped square: a run that produces a file. */
  square: (): Flow => ({
    nodes: [
      { id: 'photo', type: 'image_input', description: 'The image', required: true },
      { id: 'square', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
    ],
    outputs: [{ id: 'square', type: 'images', description: '1:1 crop' }],
  }),
};
