import type { Flow } from '@weft/contracts';
import type { Express } from 'express';
import request from 'supertest';

/** Two text inputs joined, then reviewed: the example of docs/api.md#flows. */
export const reviewFlow = (): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic of the post', required: true },
    { id: 'tone', type: 'text_input', description: 'Tone', required: false, params: { default: 'friendly' } },
    { id: 'join', type: 'prompt_concatenate', params: { separator: ' / ' }, inputs: { parts: ['topic', 'tone'] } },
    { id: 'check', type: 'human_review', inputs: { value: 'join' } },
  ],
  outputs: [{ id: 'check', type: 'text', description: 'Approved prompt' }],
});

/** One text input split into lines. */
export const splitFlow = (): Flow => ({
  nodes: [
    { id: 'text', type: 'text_input' },
    { id: 'lines', type: 'text_split', inputs: { text: 'text' } },
    { id: 'first', type: 'list_selector', params: { index: 0 }, inputs: { list: 'lines' } },
  ],
  outputs: [
    { id: 'lines', type: 'data', description: 'All lines' },
    { id: 'first', type: 'text', description: 'The first line' },
  ],
});

/**
 * A quick node, a slow provider call (`url`, e.g. the fake provider's /delay,
 * charging 1 credit) and a quick join: runs that are mid-flight long enough
 * for a durability test to break something.
 */
export const slowProviderFlow = (url: string): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'slow', type: 'generic_provider', params: { url, cost: 1 }, inputs: { prompt: 'topic' } },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic', 'slow'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: '' }],
});

export interface AgentSpec {
  name?: string;
  description?: string;
  tags?: string[];
  visibility?: 'private' | 'shared' | 'public';
  estimated_cost?: number;
  flow?: Flow | null;
}

/** POST /agents as `apiKey`; with a flow unless `flow: null`. Returns the created agent body. */
export async function postAgent(app: Express, apiKey: string, spec: AgentSpec = {}) {
  const { flow = splitFlow(), ...rest } = spec;
  const res = await request(app)
    .post('/agents')
    .set('X-Api-Key', apiKey)
    .send({ name: 'Agent', description: 'An agent', ...rest, ...(flow ? { flow } : {}) });
  if (res.status !== 201) throw new Error(`POST /agents: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string; [k: string]: unknown };
}
