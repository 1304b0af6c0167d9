import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// The generator runs as its own process: openapi-typescript's dependencies are
// ES modules that jest's module loader cannot require.

const REPO = path.resolve(__dirname, '..', '..', '..');
const GENERATED = path.join(__dirname, 'generated', 'openapi.ts');
// Each check starts Node.js on the gateway's TypeScript sources: seconds alone,
// far more on two busy cores next to the other suites of the package.
const GENERATE_TIMEOUT_MS = 120_000;
const generate = (args: string[] = []) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'packages/sdk/scripts/generate.ts', ...args], {
    cwd: REPO,
  });

test(
  'src/generated/openapi.ts is what the gateway’s routes generate (`npm run sdk:generate` after changing one)',
  async () => {
    const { stdout } = await generate(['--check']);
    expect(stdout).toMatch(/is up to date/);
  },
  GENERATE_TIMEOUT_MS,
);

test(
  'the check fails on a stale file',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-sdk-gen-'));
    const stale = path.join(dir, 'openapi.ts');
    fs.writeFileSync(stale, fs.readFileSync(GENERATED, 'utf8').replace(/"\/runs\/\{run_id\}"/, '"/runs/{id}"'));
    try {
      const err = await generate(['--check', '--file', stale]).catch((e: { code: number; stderr: string }) => e);
      expect(err).toMatchObject({ code: 1, stderr: expect.stringMatching(/is stale/) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  GENERATE_TIMEOUT_MS,
);
