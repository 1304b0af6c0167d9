import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pngBytes } from '@weft/gateway';
import { flows, startCliStack, type CliStack } from '../testing/cli-stack';

// `weft runs list|get`, `weft assets upload|download`, `weft agents|apps list|get`
// against the real gateway and workers.

let cli: CliStack;
let tmp: string;
beforeAll(async () => {
  cli = await startCliStack();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-cli-api-'));
});
afterAll(async () => {
  await cli?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('runs list and get find agent and app runs; agents and apps list and get', async () => {
  const agent = await cli.agent('Listed', flows.split());
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await cli.client.run(agent.id, { text: `${i}` })).id);

  const listed = await cli.weft(['runs', 'list', '--json', '--limit', '25']);
  expect(listed.json<{ id: string }[]>().map((r) => r.id)).toEqual([...ids].reverse());
  const lines = await cli.weft(['runs', 'list', '--status', 'completed']);
  expect(lines.stdout.trim().split('\n')).toHaveLength(3);
  expect(lines.stdout).toMatch(new RegExp(`^${ids[2]}  completed\\s+100%`));

  const { data: app } = await cli.client.api.POST('/apps', {
    body: {
      name: 'Listed app',
      description: 'x',
      agent_id: agent.id,
      inputs: [{ id: 'text', type: 'text', name: 'Text', required: true }],
      outputs: [{ id: 'first', type: 'text', description: 'First' }],
    },
  });
  const appRun = await cli.client.run(app!.id, { text: 'app' });
  expect((await cli.weft(['runs', 'get', appRun.id])).json()).toMatchObject({ id: appRun.id, app_id: app!.id });
  expect((await cli.weft(['runs', 'get', ids[0]!])).json()).toMatchObject({ id: ids[0], agent_id: agent.id });
  expect((await cli.weft(['runs', 'list', '--app', '--json'])).json<{ id: string }[]>().map((r) => r.id)).toEqual([
    appRun.id,
  ]);
  const missing = await cli.weft(['runs', 'get', '0195a3b0-0000-7000-8000-00000000dead']);
  expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/No run with id/) });

  const agents = await cli.weft(['agents', 'list', '--search', 'listed', '--json']);
  expect(agents.json<{ id: string }[]>().map((a) => a.id)).toEqual([agent.id]);
  expect((await cli.weft(['agents', 'get', 'Listed'])).json()).toMatchObject({
    id: agent.id,
    inputs: [{ id: 'text' }],
  });
  expect((await cli.weft(['apps', 'list'])).stdout).toMatch(new RegExp(`^${app!.id}  Listed app`));
  expect((await cli.weft(['apps', 'get', app!.id])).json()).toMatchObject({ id: app!.id, agent_id: agent.id });
});

test('assets upload and download', async () => {
  const png = await pngBytes(16, 16);
  const file = path.join(tmp, 'icon.png');
  fs.writeFileSync(file, png);
  const up = await cli.weft(['assets', 'upload', file, '--external-id', 'icon-1']);
  expect(up.code).toBe(0);
  const asset = up.json<{ id: string; media_extension: string }>();
  expect(asset).toMatchObject({ media_type: 'image', media_extension: 'png', external_id: 'icon-1' });
  // Uploading with the same key again answers the same asset.
  expect((await cli.weft(['assets', 'upload', file, '--external-id', 'icon-1'])).json()).toMatchObject({
    id: asset.id,
  });

  const out = path.join(tmp, 'downloads');
  fs.mkdirSync(out);
  const down = await cli.weft(['assets', 'download', asset.id, '--out', out]);
  expect(down.json()).toEqual({
    id: asset.id,
    path: path.join(out, 'icon.png'),
    bytes: png.length,
    content_type: 'image/png',
  });
  expect(fs.readFileSync(path.join(out, 'icon.png')).equals(png)).toBe(true);
});
