import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { publishFile } from '@weft/cli';
import { solid, startRunStack, type RunStack } from '@weft/gateway';

// The Python client's own unittest suites (clients/python/tests), and the example of
// its README, against the real gateway and a worker over real PostgreSQL, Redis and
// S3. CI has python3: a machine without it fails here rather than skipping them.

let stack: RunStack;
let baseUrl: string;
let tmp: string;

beforeAll(async () => {
  stack = await startRunStack();
  baseUrl = `http://127.0.0.1:${(stack.gw.server.address() as AddressInfo).port}`;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-python-'));
});
afterAll(async () => {
  await stack.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  output: string;
}

function python(args: string[], cwd: string, env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, {
      cwd,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (err) =>
      reject(new Error(`could not run python3 (the Python client needs Python 3.9 or later): ${err.message}`)),
    );
    child.once('close', (code) => resolve({ code, output }));
  });
}

test("the Python client's unittest suites pass against a real gateway and worker", async () => {
  const org = await stack.gw.createOrg('Python client', 10_000);
  const other = await stack.gw.createOrg('Python client, another organization', 100);
  const { code, output } = await python(['-m', 'unittest', 'discover', '-s', 'tests', '-v'], __dirname, {
    WEFT_URL: baseUrl,
    WEFT_API_KEY: org.apiKey,
    WEFT_TEST_OTHER_API_KEY: other.apiKey,
    WEFT_TEST_REQUIRE_STACK: '1',
  });
  if (code !== 0) throw new Error(`python3 -m unittest exited with ${code}:\n${output}`);
  expect(output).toMatch(/^OK$/m);
  // The suites against the stack ran: given WEFT_URL, they are not skipped.
  expect(output).toContain('test_upload_run_review_keeping_one_photo_and_download_it (test_stack.StackTest');
  expect(output).toContain('test_your_own_agent_wins_over_another_organizations_public_one (test_lookup.LookupTest');
}, 300_000);

test("the README's example uploads, runs, reviews and downloads against the example catalog", async () => {
  const catalogFile = path.resolve(__dirname, '..', '..', 'catalog', 'branded-product-image.json');
  // Another organization of the deployment has published the same (public) catalog: the name finds our own.
  const other = await stack.gw.createOrg('Python README, another organization', 100);
  await publishFile(baseUrl, other.apiKey, catalogFile);
  const org = await stack.gw.createOrg('Python README', 10_000);
  await publishFile(baseUrl, org.apiKey, catalogFile);
  const readme = fs.readFileSync(path.join(__dirname, 'README.md'), 'utf8');
  const example = /```python\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toContain('client.run(');
  fs.writeFileSync(path.join(tmp, 'example.py'), example!);
  fs.writeFileSync(path.join(tmp, 'photo.jpg'), await solid(640, 480, '#c08040', 'jpeg'));
  fs.writeFileSync(path.join(tmp, 'logo.png'), await solid(120, 120, '#ffffff'));

  const { code, output } = await python(['example.py'], tmp, {
    PYTHONPATH: __dirname,
    WEFT_URL: baseUrl,
    WEFT_API_KEY: org.apiKey,
  });
  if (code !== 0) throw new Error(`the README's example exited with ${code}:\n${output}`);
  expect(output).toContain('review of check proposes');
  const saved = /^saved (.+)$/m.exec(output)?.[1];
  expect(saved).toMatch(/\.png$/);
  // A real PNG, 1080×1350 as the agent's composer sets it.
  const png = fs.readFileSync(path.join(tmp, saved!));
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1080, 1350]);
}, 120_000);
