import { clientFlows, clientNodeRoutes } from '@weft/gateway';
import { startOpenAIDouble, waitFor, type OpenAIDouble } from '@weft/testing';
import { publishAgent, startRun } from '../testing/catalog-agent';
import { signIn, startConsoleStack, type ConsoleStack } from '../testing/console-stack';

// A run's page while its llm node streams its answer (the OpenAI double, word by word, slowly):
// the text shows as it is written, then the result takes its place.

jest.setTimeout(180_000);

let c: ConsoleStack;
let double: OpenAIDouble;

beforeAll(async () => {
  double = await startOpenAIDouble();
  c = await startConsoleStack({ nodeRoutes: clientNodeRoutes(double.baseURL) });
});
afterAll(async () => {
  await c?.close();
  await double?.close();
});

it("shows the node's text as it is written, then the run's result", async () => {
  const org = await c.newOrg();
  const agentId = await publishAgent(c.baseUrl, org.apiKey, 'Slow writer', clientFlows.llm());
  // Word by word, slowly enough for the page to show the answer half written.
  double.chunkGapMs = 400;
  const release = double.holdChats();
  const runId = await startRun(c.baseUrl, org.apiKey, agentId, [
    { id: 'topic', value: 'a pot of tea brewed slowly for the afternoon' },
  ]);
  const { page } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.goto(`/console/runs/${runId}`);
  await waitFor('the page to follow the run', () => c.stack.gw.deps.runEvents.sending(runId) === 1);
  release();

  const writing = page.getByRole('region', { name: 'write is writing' });
  await writing.getByText(/^echo: a pot/).waitFor();
  const partial = await writing.textContent();
  expect(partial).not.toContain('afternoon');
  // Settled: the text gives way to the result.
  await page.getByText('echo: a pot of tea brewed slowly for the afternoon').waitFor();
  await writing.waitFor({ state: 'detached' });
});
