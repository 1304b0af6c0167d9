import fs from 'node:fs';
import { clientFlows, pngBytes } from '@weft/gateway';
import { axeViolations } from '../testing/axe';
import { publishAgent, publishCatalogAgent, startRun } from '../testing/catalog-agent';
import { signIn, startConsoleStack, type ConsoleStack } from '../testing/console-stack';
import { screenshot } from '../testing/screenshots';

// What a person does in the console, in Chromium against the real gateway
// and workers: run the catalog's review agent from its form with uploaded
// images, watch it park, decide the review in the inbox, download the result.

jest.setTimeout(180_000);

let c: ConsoleStack;
let org: { id: string; apiKey: string };

beforeAll(async () => {
  c = await startConsoleStack();
  org = await c.newOrg();
});
afterAll(async () => {
  await c?.close();
});

/** No WCAG 2.1 A/AA violation on the page as it is. */
async function expectAccessible(page: import('playwright-core').Page) {
  expect(await axeViolations(page)).toEqual([]);
}

it('runs the branded product image agent from its form, parks on review, approves and downloads', async () => {
  await publishCatalogAgent(c.baseUrl, org.apiKey, 'branded-product-image.json');
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await expectAccessible(page);
  await screenshot(page, 'catalog');

  await page.getByRole('link', { name: 'Branded product image' }).click();
  await page.getByRole('heading', { name: 'Branded product image' }).waitFor();
  await page.getByText('Estimated cost:').waitFor();

  await page.getByLabel('The product photo').setInputFiles({
    name: 'photo.png',
    mimeType: 'image/png',
    buffer: await pngBytes(640, 480),
  });
  await page.getByText('photo.png: uploaded').waitFor();
  await page
    .getByLabel('The logo')
    .first()
    .setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: await pngBytes(120, 120),
    });
  await page.getByText('logo.png: uploaded').waitFor();
  await page.getByLabel('Brand name').fill('Acme');
  await page.getByLabel('The headline').fill('Fresh from the oven');
  await expectAccessible(page);
  await screenshot(page, 'run-form');
  await page.getByRole('button', { name: 'Run', exact: true }).click();

  await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split('/').pop()!;
  await page.getByText('Waiting for review').first().waitFor({ timeout: 120_000 });
  await page.locator('.react-flow__node.node-waiting_review').waitFor();
  await expectAccessible(page);
  await screenshot(page, 'run-waiting-for-review');

  await page.getByRole('link', { name: 'Reviews' }).click();
  const entry = page.getByRole('link', { name: `Run ${runId.slice(-8)}` });
  await entry.waitFor();
  await expectAccessible(page);
  await screenshot(page, 'review-inbox');
  await entry.click();
  await page.getByRole('heading', { name: 'Proposal of node “check”' }).waitFor();
  await page.getByRole('img').first().waitFor();
  await expectAccessible(page);
  await screenshot(page, 'review');
  await page.getByRole('button', { name: /^Approve/ }).click();

  await page.waitForURL(new RegExp(`/console/runs/${runId}$`));
  await page.getByText('Completed').first().waitFor({ timeout: 120_000 });
  await page.getByRole('heading', { name: 'Results' }).waitFor();
  await screenshot(page, 'run-completed');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download' }).first().click(),
  ]);
  const saved = await download.path();
  const bytes = fs.readFileSync(saved);
  // A PNG or a JPEG, as the composer and add_logo write them.
  expect(bytes.length).toBeGreaterThan(1000);
  expect(bytes.subarray(0, 4).toString('hex')).toMatch(/^(89504e47|ffd8ff)/);
  await context.close();
});

it('approves an edited subset of a text proposal, and says plainly when someone else decided first', async () => {
  await publishAgent(c.baseUrl, org.apiKey, 'Console lines review', clientFlows.reviewLines());
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.getByRole('link', { name: 'Console lines review' }).click();
  await page.getByRole('textbox', { name: /^Lines/ }).fill('alpha\nbeta\ngamma');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split('/').pop()!;
  await page.getByRole('link', { name: 'Decide the review' }).click();

  // A second person opens the same review.
  const other = await c.newPage({ width: 390, height: 844 });
  await signIn(other.page, org.apiKey);
  await other.page.getByRole('link', { name: 'Reviews' }).click();
  await other.page.getByRole('link', { name: `Run ${runId.slice(-8)}` }).click();
  await other.page.getByRole('heading', { name: /Proposal of node/ }).waitFor();
  // At phone width (the inbox and) the review fit the screen.
  expect(await other.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);

  await page.getByRole('textbox', { name: 'Prompt 2' }).fill('beta, edited');
  await page.getByRole('checkbox', { name: 'Keep prompt 3' }).uncheck();
  await page.getByRole('button', { name: 'Approve 2 kept' }).click();
  await page.waitForURL(new RegExp(`/console/runs/${runId}$`));
  await page.getByText('Completed').first().waitFor({ timeout: 60_000 });
  await page.getByText('"beta, edited"').waitFor();
  expect(await page.getByText('gamma').count()).toBe(0);

  await other.page.getByRole('button', { name: /^Approve/ }).click();
  await other.page.getByRole('alert').getByText('This review can no longer be decided').waitFor();
  await other.context.close();
  await context.close();
});

it('retries a proposal: the run asks again with a new review', async () => {
  const agentId = await publishAgent(c.baseUrl, org.apiKey, 'Console retry', clientFlows.review());
  const runId = await startRun(c.baseUrl, org.apiKey, agentId, [{ id: 'topic', value: 'tides' }]);
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.goto(`/console/reviews/runs/${runId}`);
  await page.getByRole('heading', { name: /Proposal of node/ }).waitFor({ timeout: 60_000 });
  const before = await pendingReviewIds(runId);
  await page.getByRole('button', { name: 'Retry' }).click();

  await page.waitForURL(new RegExp(`/console/runs/${runId}$`));
  const after = await waitForNewReview(runId, before[0]!);
  // The page, following the run, offers the new review.
  await page.getByRole('link', { name: 'Decide the review' }).click();
  await page.waitForURL(new RegExp(`/console/reviews/runs/${runId}$`));
  await page.getByRole('heading', { name: /Proposal of node/ }).waitFor();
  expect(after).toHaveLength(1);
  await context.close();
});

it('keeps the inbox current: a run that starts waiting appears without a refresh, and goes once it ends', async () => {
  const agentId = await publishAgent(c.baseUrl, org.apiKey, 'Console inbox', clientFlows.review());
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.getByRole('link', { name: 'Reviews' }).click();
  await page.getByRole('heading', { name: 'Reviews' }).waitFor();

  const runId = await startRun(c.baseUrl, org.apiKey, agentId, [{ id: 'topic', value: 'moss' }]);
  const entry = page.getByRole('link', { name: `Run ${runId.slice(-8)}` });
  await entry.waitFor({ timeout: 60_000 });
  const cancelled = await fetch(`${c.baseUrl}/runs/${runId}`, {
    method: 'DELETE',
    headers: { 'x-api-key': org.apiKey },
  });
  expect(cancelled.status).toBe(204);
  await entry.waitFor({ state: 'detached', timeout: 60_000 });
  await context.close();
});

it('uploads files on the assets page: each shows its progress, then joins the list', async () => {
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.getByRole('link', { name: 'Assets' }).click();
  await page.getByRole('heading', { name: 'Assets' }).waitFor();
  await page.getByLabel('Upload files').setInputFiles([
    { name: 'north.png', mimeType: 'image/png', buffer: await pngBytes(64, 48) },
    { name: 'south.png', mimeType: 'image/png', buffer: await pngBytes(48, 64) },
  ]);
  await page.getByText('north.png: uploaded').waitFor();
  await page.getByText('south.png: uploaded').waitFor();

  const res = await fetch(`${c.baseUrl}/assets?limit=2`, { headers: { 'x-api-key': org.apiKey } });
  const newest = ((await res.json()) as { data: { id: string }[] }).data.map((a) => a.id);
  expect(newest).toHaveLength(2);
  const grid = page.locator('.asset-grid');
  for (const id of newest) await grid.getByRole('img', { name: `Image ${id.slice(-8)}` }).waitFor();
  await context.close();
});

/** The run's waiting reviews once one other than `previous` waits. */
async function waitForNewReview(runId: string, previous: string): Promise<string[]> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const ids = await pendingReviewIds(runId);
    if (ids.length > 0 && !ids.includes(previous)) return ids;
  }
  throw new Error(`run ${runId} never asked for a new review after the retry`);
}

async function pendingReviewIds(runId: string): Promise<string[]> {
  const res = await fetch(`${c.baseUrl}/runs/${runId}`, { headers: { 'x-api-key': org.apiKey } });
  const run = (await res.json()) as { pending_reviews: { id: string }[] };
  return run.pending_reviews.map((r) => r.id);
}

it('offers a text input with several selections as checkboxes, within max_selections, and sends the labels chosen', async () => {
  const agentId = await publishAgent(c.baseUrl, org.apiKey, 'Console colours', clientFlows.split());
  const res = await fetch(`${c.baseUrl}/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
    body: JSON.stringify({
      name: 'Two colours',
      description: 'The colours you choose, on one line',
      agent_id: agentId,
      inputs: [
        {
          id: 'text',
          type: 'text',
          name: 'Colours',
          required: true,
          options: ['red', 'green', 'blue'],
          min_selections: 1,
          max_selections: 2,
        },
      ],
      outputs: [{ id: 'first', type: 'text', description: 'The line' }],
    }),
  });
  expect(res.status).toBe(201);
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.getByRole('link', { name: 'Two colours' }).click();
  const colours = page.getByRole('group', { name: 'Colours (choose 1 to 2)' });
  await colours.getByLabel('red').check();
  await colours.getByLabel('blue').check();
  // A third would be over max_selections.
  expect(await colours.getByLabel('green').isDisabled()).toBe(true);
  await page.getByRole('button', { name: 'Run', exact: true }).click();

  await page.waitForURL(/\/console\/app-runs\/[0-9a-f-]{36}$/);
  await page.getByText('Completed').first().waitFor({ timeout: 60_000 });
  await page.locator('.text-result').getByText('red, blue', { exact: true }).waitFor();
  await context.close();
});

it('runs an app from its form: a choice among its options, followed to its result', async () => {
  const agentId = await publishAgent(c.baseUrl, org.apiKey, 'Console first line', clientFlows.split());
  const res = await fetch(`${c.baseUrl}/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
    body: JSON.stringify({
      name: 'Pick a palette',
      description: 'The first colour of the palette you choose',
      agent_id: agentId,
      inputs: [{ id: 'text', type: 'text', name: 'Palette', required: true, options: ['red\ngreen', 'blue\nyellow'] }],
      outputs: [{ id: 'first', type: 'text', description: 'Its first colour' }],
    }),
  });
  expect(res.status).toBe(201);
  const { page, context } = await c.newPage();
  await signIn(page, org.apiKey);
  await page.getByRole('link', { name: 'Pick a palette' }).click();
  await page.getByLabel('Palette').selectOption('blue\nyellow');
  await page.getByRole('button', { name: 'Run', exact: true }).click();

  await page.waitForURL(/\/console\/app-runs\/[0-9a-f-]{36}$/);
  await page.getByText('Completed').first().waitFor({ timeout: 60_000 });
  await page.locator('.text-result').getByText('blue', { exact: true }).waitFor();
  // The app run's flow, from its own graph route: the run ended before the page
  // opened, so its stream sends no node events and the states are the graph's.
  await page.locator('.react-flow__node.node-completed').nth(2).waitFor();
  expect(await page.locator('.react-flow__node').count()).toBe(3);
  await context.close();
});
