import type { AddressInfo } from 'node:net';
import { startRunStack, type RunStack } from '@weft/gateway';
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

export async function startCliStack(credits = 1000): Promise<CliStack> {
  const stack = await startRunStack();
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

export const flows = {
  split: (): Flow => ({
    nodes: [
      { id: 'text', type: 'text_input', description: 'Lines', required: true },
      { id: 'lines', type: 'text_split', inputs: { text: 'text' } },
      { id: 'first', type: 'list_selector', params: { index: 0 }, inputs: { list: 'lines' } },
    ],
    outputs: [{ id: 'first', type: 'text', description: 'The first line' }],
  }),
  review: (): Flow => ({
    nodes: [
      { id: 'topic', type: 'text_input', description: 'Topic', required: true },
      { id: 'tone', type: 'text_input', description: 'Tone', required: false, params: { default: 'friendly' } },
      { id: 'join', type: 'prompt_concatenate', params: { separator: ' / ' }, inputs: { parts: ['topic', 'tone'] } },
      { id: 'check', type: 'human_review', inputs: { value: 'join' } },
    ],
    outputs: [{ id: 'check', type: 'text', description: 'Approved prompt' }],
  }),
  /** The lines of a text, reviewed: a proposal of several prompts. */
  reviewLines: (): Flow => ({
    nodes: [
      { id: 'text', type: 'text_input', description: 'Lines', required: true },
      { id: 'lines', type: 'text_split', inputs: { text: 'text' } },
      { id: 'check', type: 'human_review', inputs: { value: 'lines' } },
    ],
    outputs: [{ id: 'check', type: 'data', description: 'The lines kept' }],
  }),
  square: (): Flow => ({
    nodes: [
      { id: 'photo', type: 'image_input', description: 'The image', required: true },
      { id: 'square', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
    ],
    outputs: [{ id: 'square', type: 'images', description: '1:1 crop' }],
  }),
};
