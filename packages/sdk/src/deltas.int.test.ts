import { clientNodeRoutes } from '@weft/gateway';
import { startOpenAIDouble, waitFor, type OpenAIDouble } from '@weft/testing';
import type { RunEvent } from './events';
import { createAgent, flows, startSdkStack, type SdkStack } from './testing/sdk-stack';
import type { RunDelta } from './types';

// client.deltas(run) and wait({onDelta}): the text of an llm node as it streams, through the real
// gateway and worker, from the OpenAI double (chunk by chunk, word by word).

let sdk: SdkStack;
let double: OpenAIDouble;
let agent: { id: string; name: string };

beforeAll(async () => {
  double = await startOpenAIDouble();
  sdk = await startSdkStack({}, { nodeRoutes: clientNodeRoutes(double.baseURL) });
  agent = await createAgent(sdk.client, 'Streaming writer', flows.llm());
});
afterAll(async () => {
  await sdk?.close();
  await double?.close();
});

test('deltas() yields the text of the llm node in order, and ends when the run ends', async () => {
  const release = double.holdChats();
  const created = await sdk.client.run(agent.id, { topic: 'oolong tea' }, { wait: false });
  const deltas: RunDelta[] = [];
  const reading = (async () => {
    for await (const delta of sdk.client.deltas(created)) deltas.push(delta);
  })();
  // The answer is held until the stream deltas() opened is sending: deltas before it are not for it.
  await waitFor('the stream to be open', () => sdk.stack.gw.deps.runEvents.sending(created.id) === 1);
  release();
  await reading;
  const run = await sdk.client.runs.get(created.id);
  expect(run.status).toBe('completed');
  const output = run.results.find((r) => r.id === 'write')!.value as string;
  expect(output).toBe('echo: oolong tea');
  expect(deltas.map((d) => d.text).join('')).toBe(output);
  expect(deltas).toEqual(deltas.map((d, index) => ({ node_id: 'write', index, text: d.text })));
  expect(deltas.length).toBe(3);
});

test('wait() hands deltas to onDelta and the same events as before to onEvent', async () => {
  const events: RunEvent[] = [];
  const deltas: RunDelta[] = [];
  const release = double.holdChats();
  const final = await sdk.client.run(
    agent.id,
    { topic: 'jasmine tea please' },
    {
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'node' && event.node.node_id === 'write' && event.node.status === 'running') release();
      },
      onDelta: (delta) => void deltas.push(delta),
    },
  );
  expect(final.status).toBe('completed');
  expect(deltas.map((d) => d.text).join('')).toBe('echo: jasmine tea please');
  expect(events.map((e) => e.type)).not.toContain('delta');
  expect(events.at(-1)).toMatchObject({ type: 'end', run: final });
});
