import { execFile } from 'node:child_process';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '@weft/gateway';
import { runCli } from '../cli';

// `weft admin ...` against a real gateway listening on an ephemeral port.

let gw: TestGateway;
let server: Server;
let url: string;

beforeAll(async () => {
  gw = await startTestGateway();
  server = gw.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await gw?.close();
});

async function weft(args: string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { WEFT_URL: url, WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env },
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> };
}

describe('weft admin', () => {
  it('org create prints the organization and its key as JSON', async () => {
    const res = await weft(['admin', 'org', 'create', '--name', 'CLI org', '--credits', '25']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json()).toEqual({
      id: expect.any(String),
      name: 'CLI org',
      credits: 25,
      api_key: expect.stringMatching(/^weft_/),
    });
  });

  it('key create, credits add and key revoke work on that organization', async () => {
    const org = (await weft(['admin', 'org', 'create', '--name', 'CLI flow'])).json();
    const key = await weft(['admin', 'key', 'create', '--org', String(org.id), '--name', 'ci']);
    expect(key.code).toBe(0);
    expect(key.json()).toEqual({ id: expect.any(String), api_key: expect.stringMatching(/^weft_/) });

    const add = await weft(['admin', 'credits', 'add', '--org', String(org.id), '--delta', '10']);
    expect(add.json()).toEqual({ credits: 10 });
    const remove = await weft(['admin', 'credits', 'add', '--org', String(org.id), '--delta', '-4']);
    expect(remove.json()).toEqual({ credits: 6 });

    const revoke = await weft(['admin', 'key', 'revoke', String(key.json().id)]);
    expect(revoke.code).toBe(0);
    expect(revoke.json()).toEqual({ id: key.json().id, revoked: true });
    const row = await gw.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { id: String(key.json().id) } });
    expect(row.revokedAt).toBeInstanceOf(Date);
  });

  it('prints the detail and exits non-zero when the gateway refuses', async () => {
    const org = (await weft(['admin', 'org', 'create', '--name', 'CLI poor'])).json();
    const res = await weft(['admin', 'credits', 'add', '--org', String(org.id), '--delta', '-1']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/409.*below zero/);

    const missing = await weft(['admin', 'key', 'revoke', '0195a3b0-0000-7000-8000-00000000dead']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/404: API key not found/);

    const invalid = await weft(['admin', 'org', 'create', '--name', '']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/422: body\.name:/);
  });

  it('takes --url and --admin-token over the environment', async () => {
    const wrong = await weft(['admin', 'org', 'create', '--name', 'x', '--admin-token', 'not-the-token-0123456789']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/401/);
    const viaFlags = await weft(
      ['admin', 'org', 'create', '--name', 'flags', '--url', url, '--admin-token', TEST_ADMIN_TOKEN],
      {
        WEFT_URL: 'http://127.0.0.1:1',
        WEFT_ADMIN_TOKEN: undefined,
      },
    );
    expect(viaFlags.code).toBe(0);
  });

  it('reads ADMIN_TOKEN when WEFT_ADMIN_TOKEN is unset, and says so when neither is', async () => {
    expect(
      (
        await weft(['admin', 'org', 'create', '--name', 'env'], {
          WEFT_ADMIN_TOKEN: undefined,
          ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        })
      ).code,
    ).toBe(0);
    const none = await weft(['admin', 'org', 'create', '--name', 'env'], { WEFT_ADMIN_TOKEN: undefined });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/admin token is required/);
  });

  it('reports usage errors and an unreachable gateway without a stack trace', async () => {
    const bad = await weft(['admin', 'credits', 'add', '--org', 'x', '--delta', 'ten']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Not an integer/);
    const down = await weft(['admin', 'org', 'create', '--name', 'x'], { WEFT_URL: 'http://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: Cannot reach http:\/\/127\.0\.0\.1:1/);
  });

  it('runs as the installed `weft` command', async () => {
    const bin = path.resolve(__dirname, '..', '..', 'bin', 'weft.js');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [bin, 'admin', 'org', 'create', '--name', 'Spawned'],
      {
        env: { ...process.env, WEFT_URL: url, WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({ name: 'Spawned', credits: 0 });
  });
});
