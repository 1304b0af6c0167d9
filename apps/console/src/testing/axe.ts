import fs from 'node:fs';
import type { Page } from 'playwright-core';

// axe-core's rules run in the page itself. Its script is evaluated through
// the DevTools protocol, which the console's Content-Security-Policy (no
// inline or foreign script) does not apply to.
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The WCAG 2.1 A and AA violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, not a function: its globals are the page's (window.axe, document), not this program's.
  return page.evaluate<AxeViolation[]>(`
    axe
      .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((results) =>
        results.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          targets: v.nodes.map((n) => n.target.join(' ')),
        })),
      )
  `);
}
