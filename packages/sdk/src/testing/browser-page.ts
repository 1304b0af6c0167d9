import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BROWSER_ENTRY = path.resolve(__dirname, '../browser.ts');

export interface SdkPage {
  page: Page;
  close(): Promise<void>;
}

/** @weft/sdk/browser as one script that defines the global `WeftSdk`. */
async function browserScript(): Promise<string> {
  const result = await build({
    entryPoints: [BROWSER_ENTRY],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'WeftSdk',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/**
 * Chromium showing a blank page of `origin` with the SDK loaded: the page is
 * served by the browser itself, so every other request of `origin` reaches
 * the real gateway there, same-origin as a web console's would.
 */
export async function openSdkPage(origin: string): Promise<SdkPage> {
  const script = await browserScript();
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage();
    const url = `${origin}/__sdk-test-page__`;
    await page.route(url, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>sdk</title>' }),
    );
    await page.goto(url);
    await page.addScriptTag({ content: script });
    return { page, close: () => browser.close() };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
