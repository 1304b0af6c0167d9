import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { consoleBuildReason, ensureConsoleBuilt } from './console-build';

// When `npm run dev` builds the console. Each test has a checkout of its own
// in a temp folder; Vite there is a stand-in script that writes what a build
// writes (index.html into --outDir) and records how it was called.

let root: string;
let outDir: string;
let lines: string[];
const log = (line: string) => lines.push(line);

const STAND_IN_VITE = `
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
if (fs.existsSync('fail-build')) { console.error('src/main.tsx: syntax error'); process.exit(1); }
const outDir = args[args.indexOf('--outDir') + 1];
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'index.html'), '<!doctype html>');
fs.appendFileSync('vite-calls.json', JSON.stringify({ cwd: process.cwd(), args }) + '\\n');
`;

function write(file: string, text = ''): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

/** Sets a file's modification time `secondsAgo` in the past. */
function touch(file: string, secondsAgo: number): void {
  const at = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(path.join(root, file), at, at);
}

function viteCalls(): Array<{ cwd: string; args: string[] }> {
  const file = path.join(root, 'vite-calls.json');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { cwd: string; args: string[] });
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'weft-console-build-')));
  outDir = path.join(root, 'dist', 'console');
  lines = [];
  write('node_modules/vite/bin/vite.js', STAND_IN_VITE);
  write('apps/console/vite.config.ts', 'export default {};\n');
  write('apps/console/index.html', '<!doctype html>\n');
  write('apps/console/src/main.tsx', 'export {};\n');
  for (const file of ['apps/console/vite.config.ts', 'apps/console/index.html', 'apps/console/src/main.tsx']) {
    touch(file, 60);
  }
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

test('without a build, builds dist/console with the Vite command of npm run build, saying so in one line', async () => {
  await ensureConsoleBuilt(root, outDir, log);

  expect(lines).toEqual(['console: building dist/console (not built yet)']);
  expect(viteCalls()).toEqual([
    {
      cwd: root,
      args: ['build', '--config', 'apps/console/vite.config.ts', '--outDir', outDir, '--emptyOutDir'],
    },
  ]);
  expect(fs.existsSync(path.join(outDir, 'index.html'))).toBe(true);
});

test('an up-to-date build is kept, silently', async () => {
  await ensureConsoleBuilt(root, outDir, log);
  lines = [];
  await ensureConsoleBuilt(root, outDir, log);

  expect(lines).toEqual([]);
  expect(viteCalls()).toHaveLength(1);
});

test.each(['apps/console/src/main.tsx', 'apps/console/src/runs/run-page.tsx', 'apps/console/vite.config.ts'])(
  'a change to %s since the build rebuilds it',
  async (file) => {
    await ensureConsoleBuilt(root, outDir, log);
    touch('dist/console/index.html', 30);
    write(file, 'export const changed = true;\n');
    lines = [];

    expect(consoleBuildReason(root, outDir)).toBe('apps/console changed since the last build');
    await ensureConsoleBuilt(root, outDir, log);
    expect(lines).toEqual(['console: building dist/console (apps/console changed since the last build)']);
    expect(viteCalls()).toHaveLength(2);
  },
);

test('a failed build is reported with its output, and the stack goes on', async () => {
  write('fail-build');
  await ensureConsoleBuilt(root, outDir, log);

  expect(lines).toEqual([
    'console: building dist/console (not built yet)',
    expect.stringMatching(/^console: the build failed; [^]*src\/main\.tsx: syntax error/),
  ]);
});

test('without apps/console there is nothing to build', async () => {
  fs.rmSync(path.join(root, 'apps', 'console'), { recursive: true });
  await ensureConsoleBuilt(root, outDir, log);

  expect(lines).toEqual(['console: apps/console does not exist yet, so there is no console to build']);
  expect(viteCalls()).toEqual([]);
});
