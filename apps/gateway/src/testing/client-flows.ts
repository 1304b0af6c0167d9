import type { Flow } from '@weft/contracts';
import type { NodeRoutes } from '@weft/nodes';
import { createNodeRoutes } from '@weft/providers';

// Small flows the clients' tests (the SDK, the CLI) publish as agents: each one
// shows a behaviour a client must handle, and runs without a provider but `llm`,
// whose provider is the OpenAI double (clientNodeRoutes).

export const clientFlows = {
  /** Text in, its first line out: instant nodes only. */
  split: (): Flow => ({
    nodes: [
      { id: 'text', type: 'text_input', description: 'Lines', required: true },
      { id: 'lines', type: 'text_split', inputs: { text: 'text' } },
      { id: 'first', type: 'list_selector', params: { index: 0 }, inputs: { list: 'lines' } },
    ],
    outputs: [{ id: 'first', type: 'text', description: 'The first line' }],
  }),
  /** A topic and a tone joined, then a review of the one prompt. */
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
  /** An image cropped square: a run that produces a file. */
  square: (): Flow => ({
    nodes: [
      { id: 'photo', type: 'image_input', description: 'The image', required: true },
      { id: 'square', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
    ],
    outputs: [{ id: 'square', type: 'images', description: '1:1 crop' }],
  }),
  /** A topic answered by an llm node: its answer streams (`delta` events). */
  llm: (): Flow => ({
    nodes: [
      { id: 'topic', type: 'text_input', description: 'Topic', required: true },
      { id: 'write', type: 'llm', inputs: { prompt: 'topic' } },
    ],
    outputs: [{ id: 'write', type: 'text', description: 'The answer' }],
  }),
};

/** The routes of a worker whose `llm` nodes ask the OpenAI-compatible server at `baseURL` (a double's). */
export function clientNodeRoutes(baseURL: string): NodeRoutes {
  return createNodeRoutes({ OPENAI_API_KEY: 'sk-test-clients', OPENAI_BASE_URL: baseURL });
}
