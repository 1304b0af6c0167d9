import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import request from 'supertest';
import { startTestGateway, type TestGateway } from '@weft/gateway';
import { runCli } from '../cli';
import { publishFile } from './publish';

const CATALOG = path.resolve(__dirname, '..', '..', '..', '..', 'catalog');
const catalogFiles = fs
  .readdirSync(CATALOG)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => path.join(CATALOG, f));

let gw: TestGateway;
let server: Server;
let baseUrl: string;
let tmp: string;

beforeAll(async () => {
  gw = await startTestGateway();
  server = gw.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-publish-'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const writeFile = (name: string, content: unknown) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
};

it('publishes every example of catalog/ and re-publishing changes nothing', async () => {
  const org = await gw.createOrg();
  expect(catalogFiles.length).toBeGreaterThanOrEqual(3);

  const first = [];
  for (const file of catalogFiles) first.push(await publishFile(baseUrl, org.apiKey, file));
  for (const report of first) {
    expect(report.agent).toMatchObject({ action: 'created', version: 1 });
    expect(report.apps.every((a) => a.action === 'created')).toBe(true);
    expect(report.warnings).toEqual([]);
    // The agent is readable and complete.
    const agent = await request(gw.app).get(`/agents/${report.agent.id}`).set('X-Api-Key', org.apiKey);
    expect(agent.status).toBe(200);
  }
  expect(first.some((r) => r.apps.length > 0)).toBe(true);
  const review = first.find((r) => r.agent.name === 'Post idea with review')!;
  const reviewAgent = await request(gw.app).get(`/agents/${review.agent.id}`).set('X-Api-Key', org.apiKey);
  expect(reviewAgent.body.has_human_review).toBe(true);

  const again = [];
  for (const file of catalogFiles) again.push(await publishFile(baseUrl, org.apiKey, file));
  for (const [i, report] of again.entries()) {
    expect(report.agent).toEqual({ ...first[i]!.agent, action: 'unchanged' });
    expect(report.apps).toEqual(first[i]!.apps.map((a) => ({ ...a, action: 'exists' })));
    expect(report.warnings).toEqual([]);
  }
  const agents = await gw.deps.db.prisma.agent.count({ where: { organizationId: org.id } });
  const apps = await gw.deps.db.prisma.app.count({ where: { organizationId: org.id } });
  expect(agents).toBe(catalogFiles.length);
  expect(apps).toBe(first.reduce((n, r) => n + r.apps.length, 0));

  // The public examples are visible to every other organization.
  const stranger = await gw.createOrg();
  const listed = await request(gw.app).get('/agents?visibility=public&tags=example').set('X-Api-Key', stranger.apiKey);
  expect(listed.body.data).toHaveLength(catalogFiles.length);
});

it('publishes a new version when the flow changed, and warns about fields it cannot update', async () => {
  const org = await gw.createOrg();
  const def = JSON.parse(
    fs.readFileSync(
      catalogFiles.find((f) => f.endsWith('line-picker.json'))!,
      'utf8',
    ),
  );
  const file = writeFile('picker.json', def);
  const created = await publishFile(baseUrl, org.apiKey, file);

  def.flow.nodes[2].params.index = 1;
  def.description = 'Picks the second line now';
  def.apps[0].description = 'Paste a list, get its second entry.';
  writeFile('picker.json', def);
  const updated = await publishFile(baseUrl, org.apiKey, file);
  expect(updated.agent).toEqual({ ...created.agent, action: 'new_version', version: 2 });
  expect(updated.apps).toEqual([{ ...created.apps[0], action: 'exists' }]);
  expect(updated.warnings).toEqual([
    "agent 'Line picker': description differ from the file and were not updated (only the flow is versioned)",
    "app 'First line' differs from the file and was not updated (apps cannot be edited yet)",
  ]);
});

it('does not mistake another organization’s agent of the same name for its own', async () => {
  const a = await gw.createOrg();
  const b = await gw.createOrg();
  const file = catalogFiles[0]!;
  const ra = await publishFile(baseUrl, a.apiKey, file);
  const rb = await publishFile(baseUrl, b.apiKey, file);
  expect(rb.agent.action).toBe('created');
  expect(rb.agent.id).not.toBe(ra.agent.id);
});

it('reports an invalid file with the path of each problem, before any request', async () => {
  const file = writeFile('broken.json', {
    kind: 'agent',
    name: 'x',
    description: 'y',
    flow: { nodes: [] },
    visiblity: 'public',
  });
  await expect(publishFile('http://127.0.0.1:1', 'key', file)).rejects.toThrow(
    /flow\.nodes: .*\n.*(visiblity|Unrecognized)/s,
  );
});

it('surfaces the server validation error of an invalid flow', async () => {
  const org = await gw.createOrg();
  const file = writeFile('cyclic.json', {
    kind: 'agent',
    name: 'Cyclic',
    description: '',
    flow: {
      nodes: [
        { id: 'a', type: 'prompt_concatenate', inputs: { parts: ['b'] } },
        { id: 'b', type: 'prompt_concatenate', inputs: { parts: ['a'] } },
      ],
    },
  });
  await expect(publishFile(baseUrl, org.apiKey, file)).rejects.toThrow(
    /422: body\.flow\.nodes\.1\.inputs\.parts\.0: Cycle/,
  );
});

it('weft publish <dir> publishes every file and prints the reports', async () => {
  const org = await gw.createOrg();
  const out: string[] = [];
  const err: string[] = [];
  const io = { env: {}, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
  const code = await runCli(['--url', baseUrl, 'publish', CATALOG, '--api-key', org.apiKey], io);
  expect(err.join('')).toBe('');
  expect(code).toBe(0);
  const reports = JSON.parse(out.join(''));
  expect(reports.map((r: { agent: { action: string } }) => r.agent.action)).toEqual(catalogFiles.map(() => 'created'));

  const withEnv = { ...io, env: { WEFT_URL: baseUrl, WEFT_API_KEY: org.apiKey } };
  out.length = 0;
  expect(await runCli(['publish', catalogFiles[0]!], withEnv)).toBe(0);
  expect(JSON.parse(out.join(''))[0].agent.action).toBe('unchanged');

  expect(await runCli(['publish', catalogFiles[0]!], { ...io, env: { WEFT_URL: baseUrl } })).toBe(1);
  expect(err.join('')).toMatch(/API key is required/);
});
