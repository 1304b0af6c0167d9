import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent } from '../testing/catalog-fixtures';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';
import { solid } from '../testing/media/generate';
import { assetRecord, download, failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// rename_asset: new assets, the same bytes, the new download name.

let stack: RunStack;
let org: Org;

const renameFlow = (filename: string): Flow => ({
  nodes: [
    { id: 'files', type: 'image_input' },
    { id: 'rename', type: 'rename_asset', params: { filename }, inputs: { assets: 'files' } },
  ],
  outputs: [{ id: 'rename', type: 'images', description: 'Renamed' }],
});

// The worker starts in the first test, once its run is created and its asset deleted.
beforeAll(async () => {
  stack = await startRunStack({}, false);
  org = await stack.gw.createOrg('Rename', 100);
});
afterAll(() => stack.close());

test('an asset deleted after the run was created fails the node, naming the port', async () => {
  const id = await uploadAsset(stack.gw, org.apiKey, await solid(14, 14, '#00ffff'), 'gone.png');
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: renameFlow('x') });
  const created = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'files', value: { asset_ids: [id] } }] });
  expect(created.status).toBe(201);
  await request(stack.gw.app).delete(`/assets/${id}`).set('X-Api-Key', org.apiKey).expect(204);
  await stack.startWorker();
  const failure = failureOf(await pollRun(stack.gw, org.apiKey, `/runs/${created.body.id}`));
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`Node 'rename': asset ${id} at input 'assets' does not exist or is not readable`);
});

test('each asset is copied byte for byte under the new name, numbered by {n}, its extension kept', async () => {
  const a = await solid(30, 20, '#ff0000');
  const b = await solid(30, 20, '#0000ff', 'jpeg');
  const ids = [
    await uploadAsset(stack.gw, org.apiKey, a, 'a.png'),
    await uploadAsset(stack.gw, org.apiKey, b, 'b.jpg'),
  ];
  const run = await runFlow(stack.gw, org.apiKey, renameFlow('summer-{n}'), [
    { id: 'files', value: { asset_ids: ids } },
  ]);
  const renamed = resultAssets(run, 'rename');
  expect(renamed).toHaveLength(2);
  expect(renamed).not.toContain(ids[0]);
  const first = await download(stack.gw, org.apiKey, renamed[0]!);
  const second = await download(stack.gw, org.apiKey, renamed[1]!);
  expect(Buffer.compare(first.bytes, a)).toBe(0);
  expect(Buffer.compare(second.bytes, b)).toBe(0);
  expect(first.headers['content-disposition']).toContain('filename="summer-1.png"');
  expect(second.headers['content-disposition']).toContain('filename="summer-2.jpg"');
  expect(second.headers['content-type']).toBe('image/jpeg');
  expect(await assetRecord(stack.gw, org.apiKey, renamed[1]!)).toMatchObject({
    media_type: 'image',
    media_extension: 'jpg',
  });
  // The originals keep their names.
  expect((await download(stack.gw, org.apiKey, ids[0]!)).headers['content-disposition']).toContain('filename="a.png"');
});

test('a name that already ends with the extension is not given it twice', async () => {
  const id = await uploadAsset(stack.gw, org.apiKey, await solid(12, 12, '#00ff00'), 'c.png');
  const run = await runFlow(stack.gw, org.apiKey, renameFlow('Cover.PNG'), [
    { id: 'files', value: { asset_ids: [id] } },
  ]);
  const [renamed] = resultAssets(run, 'rename');
  expect((await download(stack.gw, org.apiKey, renamed!)).headers['content-disposition']).toContain(
    'filename="Cover.PNG"',
  );
});

test('a filename with a slash is refused at publication', async () => {
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: renameFlow('a/b') })).rejects.toThrow(/422/);
});
