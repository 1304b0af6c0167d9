import type { AddressInfo } from 'node:net';
import { startRunStack, type RunStack } from '@weft/gateway';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildConsole } from './build-console';

/** Debian's chromium (`apt-get install chromium`; `.ci/run` installs it when missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ConsoleStack {
  stack: RunStack;
  /** http://127.0.0.1:<port> of the gateway that serves the console and the API. */
  baseUrl: string;
  browser: Browser;
  /** A fresh organization with credits: its API key. */
  newOrg(credits?: number): Promise<{ id: string; apiKey: string }>;
  /** A page in a context of its own (its own session storage), at `width`×`height`. */
  newPage(size?: { width: number; height: number }): Promise<{ page: Page; context: BrowserContext }>;
  close(): Promise<void>;
}

/** The real gateway (serving a fresh build of the console) and workers, and Chromium. */
export async function startConsoleStack(worker: Parameters<typeof startRunStack>[1] = {}): Promise<ConsoleStack> {
  const build = buildConsole();
  const stack = await startRunStack({ CONSOLE_DIR: build.dir }, worker);
  const baseUrl = `http://127.0.0.1:${(stack.gw.server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
  // Every page's context, closed before the stack even when a test failed with
  // one open: an open page keeps its run's event stream open on the gateway.
  const contexts = new Set<BrowserContext>();
  return {
    stack,
    baseUrl,
    browser,
    newOrg: (credits = 1000) => stack.gw.createOrg('Console org', credits),
    async newPage(size = { width: 1280, height: 900 }) {
      const context = await browser.newContext({ viewport: size, acceptDownloads: true, baseURL: baseUrl });
      contexts.add(context);
      context.once('close', () => contexts.delete(context));
      const page = await context.newPage();
      return { page, context };
    },
    async close() {
      // Each step is bounded: one that hangs (seen once in a while on a loaded
      // machine, not reproduced) is named on stderr, and the others still run.
      await bounded('closing the pages', () => Promise.all([...contexts].map((context) => context.close())));
      await bounded('closing Chromium', () => browser.close());
      await bounded('stopping the gateway and workers', () => stack.close());
      build.remove();
    },
  };
}

const STEP_MS = 45_000;

async function bounded(what: string, step: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), STEP_MS);
  });
  const outcome = await Promise.race([step().then(() => 'done' as const), late]).finally(() => clearTimeout(timer));
  if (outcome === 'late') process.stderr.write(`[console stack] ${what} did not finish in ${STEP_MS} ms; going on\n`);
}

/** Signs in on the console's page with `apiKey` and waits for the catalog. */
export async function signIn(page: Page, apiKey: string): Promise<void> {
  await page.goto('/console/');
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Agents and apps' }).waitFor();
}
