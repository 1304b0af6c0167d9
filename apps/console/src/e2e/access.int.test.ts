import { clientFlows } from '@weft/gateway';
import { publishAgent, startRun } from '../testing/catalog-agent';
import { signIn, startConsoleStack, type ConsoleStack } from '../testing/console-stack';
import { screenshot } from '../testing/screenshots';

// Signing in and out, what another organization's objects look like, and
// cancelling, in Chromium against the real gateway.

jest.setTimeout(120_000);

let c: ConsoleStack;

beforeAll(async () => {
  c = await startConsoleStack();
});
afterAll(async () => {
  await c?.close();
});

it('refuses a wrong key, keeps the key in the tab only, and signs out', async () => {
  const org = await c.newOrg();
  const { page, context } = await c.newPage();
  await page.goto('/console/');
  await page.getByLabel('API key').fill('weft_not_a_key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('This API key was not accepted').waitFor();
  await screenshot(page, 'sign-in');

  await page.getByLabel('API key').fill(org.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Agents and apps' }).waitFor();
  // Session storage only: no cookie, no local storage, nothing in the URL.
  expect(await context.cookies()).toEqual([]);
  expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);
  expect(await page.evaluate("sessionStorage.getItem('weft.apiKey')")).toBe(org.apiKey);
  expect(page.url()).not.toContain(org.apiKey);

  // Another tab of the same browser starts signed out.
  const second = await context.newPage();
  await second.goto('/console/catalog');
  await second.getByLabel('API key').waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  expect(await page.evaluate("sessionStorage.getItem('weft.apiKey')")).toBeNull();
  await context.close();
});

it('answers another organization’s run as not found', async () => {
  const owner = await c.newOrg();
  const stranger = await c.newOrg();
  const agentId = await publishAgent(c.baseUrl, owner.apiKey, 'Owner lines', clientFlows.split());
  const runId = await startRun(c.baseUrl, owner.apiKey, agentId, [{ id: 'text', value: 'a\nb' }]);
  const { page, context } = await c.newPage();
  await signIn(page, stranger.apiKey);
  await page.goto(`/console/runs/${runId}`);
  await page
    .getByRole('alert')
    .getByText(/not found/i)
    .waitFor();
  await page.goto(`/console/reviews/runs/${runId}`);
  await page
    .getByRole('alert')
    .getByText(/not found/i)
    .waitFor();
  await context.close();
});

it('cancels a run from its page and from the runs list', async () => {
  const org = await c.newOrg();
  const agentId = await publishAgent(c.baseUrl, org.apiKey, 'Parks for review', clientFlows.review());
  const first = await startRun(c.baseUrl, org.apiKey, agentId, [{ id: 'topic', value: 'kites' }]);
  const second = await startRun(c.baseUrl, org.apiKey, agentId, [{ id: 'topic', value: 'boats' }]);
  const { page, context } = await c.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, org.apiKey);

  await page.goto(`/console/runs/${first}`);
  await page.getByText('Waiting for review').first().waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByText('Canceled').first().waitFor({ timeout: 30_000 });

  await page.getByRole('link', { name: 'Runs', exact: true }).click();
  await page.getByRole('button', { name: `Cancel run ${second.slice(-8)}` }).click();
  await page
    .getByRole('row', { name: new RegExp(second.slice(-8)) })
    .getByText('Canceled')
    .waitFor({ timeout: 30_000 });
  await screenshot(page, 'runs');
  await context.close();
});
