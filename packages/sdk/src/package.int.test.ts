import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

// The package as npm would publish it: built by its own `build` script, loadable
// as plain JavaScript, and depending on no other workspace.

const run = promisify(execFile);
const PACKAGE = path.resolve(__dirname, '..');

beforeAll(async () => {
  await run('npm', ['run', 'build'], { cwd: PACKAGE });
}, 120_000);

test('builds to dist/, which main, types and exports name', async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  const { '.': main, './browser': browser } = manifest.exports;
  for (const file of [manifest.main, manifest.types, main.types, main.default, browser.types, browser.default]) {
    expect(fs.existsSync(path.join(PACKAGE, file))).toBe(true);
  }
  // Run from the package itself, whose exports resolve its own name as a dependent's would.
  const { stdout } = await run(
    process.execPath,
    [
      '-e',
      `const sdk = require('@weft/sdk'); const web = require('@weft/sdk/browser');
       console.log(typeof sdk.WeftClient, typeof sdk.file, typeof web.WeftBrowserClient, typeof web.WeftClient)`,
    ],
    { cwd: PACKAGE },
  );
  expect(stdout.trim()).toBe('function function function undefined');
});

test('publishes dist and the README only, and needs no other @weft package', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: PACKAGE });
  const files: string[] = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/browser.js',
      'dist/browser.d.ts',
    ]),
  );
  expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md'].includes(f))).toEqual([]);

  const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@weft/'))).toEqual([]);
  const built = files.filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(PACKAGE, f), 'utf8'));
  expect(built.filter((code) => code.includes('require("@weft/'))).toEqual([]);
});
