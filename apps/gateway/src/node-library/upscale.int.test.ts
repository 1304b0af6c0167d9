import type { Flow } from '@weft/contracts';
import sharp from 'sharp';
import request from 'supertest';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { solid } from '../testing/media/generate';
import { near, pixelsOf } from '../testing/media/pixels';
import { download, failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// upscale, its local route: Lanczos resampling to exactly factor × the size.

let stack: RunStack;
let org: Org;

const upscaleFlow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'photo', type: 'image_input' },
    { id: 'up', type: 'upscale', params, inputs: { image: 'photo' } },
  ],
  outputs: [{ id: 'up', type: 'images', description: 'Larger' }],
});

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Upscale', 100);
});
afterAll(() => stack.close());

test('each image becomes exactly factor times wider and higher, in its own format', async () => {
  const png = await uploadAsset(stack.gw, org.apiKey, await solid(37, 23, '#336699'), 'a.png');
  const jpeg = await uploadAsset(stack.gw, org.apiKey, await solid(20, 10, '#ff8800', 'jpeg'), 'b.jpg');
  const twice = await runFlow(stack.gw, org.apiKey, upscaleFlow(), [
    { id: 'photo', value: { asset_ids: [png, jpeg] } },
  ]);
  const [a, b] = resultAssets(twice, 'up');
  const first = await download(stack.gw, org.apiKey, a!);
  expect(await sharp(first.bytes).metadata()).toMatchObject({ format: 'png', width: 74, height: 46 });
  // Resampling a flat colour gives that colour: nothing is invented.
  const pixels = await pixelsOf(first.bytes);
  expect(near(pixels.at(37, 23), [0x33, 0x66, 0x99], 2)).toBe(true);
  expect(await sharp((await download(stack.gw, org.apiKey, b!)).bytes).metadata()).toMatchObject({
    format: 'jpeg',
    width: 40,
    height: 20,
  });

  const four = await runFlow(stack.gw, org.apiKey, upscaleFlow({ factor: 4 }), [
    { id: 'photo', value: { asset_ids: [png] } },
  ]);
  const [c] = resultAssets(four, 'up');
  expect(await sharp((await download(stack.gw, org.apiKey, c!)).bytes).metadata()).toMatchObject({
    width: 148,
    height: 92,
  });
});

test('GET /node-types/upscale shows its local route on the heavy lane', async () => {
  const res = await request(stack.gw.app).get('/node-types/upscale').set('X-Api-Key', org.apiKey);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ route: { provider: 'local', model: 'lanczos3' }, lane: 'heavy' });
});

test('a factor other than 2 or 4 is refused at publication', async () => {
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: upscaleFlow({ factor: 3 }) })).rejects.toThrow(/422/);
});

test('an image that cannot be decoded fails the run, naming the port', async () => {
  const png = await solid(50, 50, '#123456');
  const broken = await uploadAsset(stack.gw, org.apiKey, png.subarray(0, 60), 'broken.png');
  const run = await runFlow(stack.gw, org.apiKey, upscaleFlow(), [{ id: 'photo', value: { asset_ids: [broken] } }]);
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`Node 'up': the image at input 'image' (asset ${broken}) cannot be read`);
});
