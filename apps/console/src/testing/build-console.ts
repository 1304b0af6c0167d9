import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Builds the console as `npm run build` does, into a folder of its own, so
 * that the tests serve the sources as they are (not a dist/ left from before).
 */
export function buildConsole(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-console-'));
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      path.join(ROOT, 'apps/console/vite.config.mts'),
      '--outDir',
      dir,
      '--emptyOutDir',
      '--logLevel',
      'error',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
