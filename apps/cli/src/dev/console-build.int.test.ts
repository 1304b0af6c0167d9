import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { consoleBuildReason, ensureConsoleBuilt } from './console-build';

// When `npm run dev` builds the console: the repository's own apps/console,
// built by the real Vite into a folder of each test's own.

const ROOT = path.resolve(__dirname, '../../../..');

let tmp: string;
let outDir: string;
let lines: string[];
const log = (line: string) => lines.push(line);

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-console-build-'));
  outDir = path.join(tmp, 'dist', 'console');
  lines = [];
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('without a build, builds the console with Vite, saying so in one line', async () => {
  await ensureConsoleBuilt(ROOT, outDir, log);

  expect(lines).toEqual([`console: building ${path.relative(ROOT, outDir)} (not built yet)`]);
  const index = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
  // The page loads a hashed bundle under /console/assets/, and nothing inline.
  expect(index).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js"><\/script>/);
  expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
}, 120_000);

test('an up-to-date build is kept, silently; one older than the sources is rebuilt', async () => {
  await ensureConsoleBuilt(ROOT, outDir, log);
  const index = path.join(outDir, 'index.html');
  const builtAt = fs.statSync(index).mtimeMs;
  lines = [];
  await ensureConsoleBuilt(ROOT, outDir, log);
  expect(lines).toEqual([]);
  expect(fs.statSync(index).mtimeMs).toBe(builtAt);

  fs.utimesSync(index, new Date(1000), new Date(1000));
  expect(consoleBuildReason(ROOT, outDir)).toBe('apps/console changed since the last build');
  await ensureConsoleBuilt(ROOT, outDir, log);
  expect(lines).toEqual([
    `console: building ${path.relative(ROOT, outDir)} (apps/console changed since the last build)`,
  ]);
  expect(fs.statSync(index).mtimeMs).toBeGreaterThan(1000);
}, 120_000);

test('a failed build is reported with its output, and the stack goes on', async () => {
  // A build folder that cannot be made: its parent is a file.
  const blocked = path.join(tmp, 'a-file');
  fs.writeFileSync(blocked, '');
  await ensureConsoleBuilt(ROOT, path.join(blocked, 'console'), log);

  expect(lines).toEqual([
    expect.stringMatching(/^console: building .* \(not built yet\)$/),
    expect.stringMatching(/^console: the build failed; /),
  ]);
}, 120_000);
