import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';

// The screenshots of docs/console.md are made by the browser tests: with
// CONSOLE_SCREENSHOTS=docs they are written to docs/console/, otherwise to a
// temporary folder (taken all the same, so that the path stays exercised).

const DOCS = path.resolve(__dirname, '../../../../docs/console');
const target =
  process.env.CONSOLE_SCREENSHOTS === 'docs' ? DOCS : fs.mkdtempSync(path.join(os.tmpdir(), 'weft-shots-'));

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(target, { recursive: true });
  const file = path.join(target, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}
