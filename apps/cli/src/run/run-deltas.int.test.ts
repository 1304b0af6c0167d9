import { clientNodeRoutes } from '@weft/gateway';
import { startOpenAIDouble, type OpenAIDouble } from '@weft/testing';
import type { AnyRun } from '@weft/sdk';
import { flows, startCliStack, type CliStack } from '../testing/cli-stack';
import { inTerminal } from '../testing/terminal';

// `weft run` of an agent whose llm node streams its answer (the OpenAI double, word by word):
// on a terminal the text shows as it comes, above the bar; without one, and with --json, the
// output is what it always was.

let cli: CliStack;
let double: OpenAIDouble;

beforeAll(async () => {
  double = await startOpenAIDouble();
  cli = await startCliStack(1000, { nodeRoutes: clientNodeRoutes(double.baseURL) });
  await cli.agent('Writer', flows.llm());
});
afterAll(async () => {
  await cli?.close();
  await double?.close();
});

test('on a terminal the answer is written as it comes, then the results as always', async () => {
  const release = double.holdChats();
  const term = inTerminal(cli, ['run', 'Writer', '--input', 'topic=rooibos is not tea']);
  try {
    // The bar shows an event of the stream (topic done, write running): the stream is open, the answer may come.
    const at = await term.waitFor('50% |');
    release();
    await term.waitFor('write › echo: rooibos is not tea', at);
    expect(await term.exited).toBe(0);
  } finally {
    release();
    term.kill();
  }
  const screen = term.screen().replace(/\r/g, '');
  const streamed = screen.indexOf('write › echo: rooibos is not tea');
  expect(screen.indexOf('write: echo: rooibos is not tea', streamed)).toBeGreaterThan(streamed);
});

test('without a terminal, and with --json, nothing of the deltas is printed', async () => {
  const plain = await cli.weft(['run', 'Writer', '--input', 'topic=sencha']);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toBe('write: echo: sencha\n');
  expect(plain.stderr).not.toContain('›');

  const json = await cli.weft(['run', 'Writer', '--input', 'topic=matcha', '--json']);
  expect(json.code).toBe(0);
  expect(json.stderr).toBe('');
  expect(json.json<{ run: AnyRun }>().run).toMatchObject({
    status: 'completed',
    results: [{ id: 'write', value: 'echo: matcha' }],
  });
});
