import type { Flow } from '@weft/contracts';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { solid } from '../testing/media/generate';
import { failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';
import { startRunStack, type RunStack } from '../testing/test-runs';

// A node that reads its input whole (images, fonts, subtitles) holds it in
// the worker's memory: a file over ASSET_MAX_IMAGE_BYTES fails the node
// before a byte is read, instead of taking the worker's memory with it.

const MAX_READ_BYTES = 16 * 1024;

let stack: RunStack;
let org: Org;

beforeAll(async () => {
  stack = await startRunStack({}, { maxReadBytes: MAX_READ_BYTES });
  org = await stack.gw.createOrg('Read limit', 100);
});
afterAll(() => stack.close());

const squareFlow: Flow = {
  nodes: [
    { id: 'photo', type: 'image_input' },
    { id: 'square', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
  ],
  outputs: [{ id: 'square', type: 'images', description: '' }],
};

/** A PNG of noise, which does not compress: about 3 bytes per pixel. */
const noise = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();

test('an input file over the limit fails the node with invalid_input, naming the file, its size and the setting', async () => {
  const big = await noise(120, 120);
  expect(big.length).toBeGreaterThan(MAX_READ_BYTES);
  const id = await uploadAsset(stack.gw, org.apiKey, big, 'huge.png');
  const run = await runFlow(stack.gw, org.apiKey, squareFlow, [{ id: 'photo', value: { asset_ids: [id] } }]);
  expect(run.status).toBe('failed');
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toBe(
    `Node 'square': asset ${id} (huge.png) has ${big.length} bytes, ` +
      `more than the ${MAX_READ_BYTES} a node reads into memory (ASSET_MAX_IMAGE_BYTES)`,
  );
});

test('a file within the limit is read and processed', async () => {
  const small = await solid(40, 20, '#336699');
  expect(small.length).toBeLessThan(MAX_READ_BYTES);
  const id = await uploadAsset(stack.gw, org.apiKey, small, 'small.png');
  const run = await runFlow(stack.gw, org.apiKey, squareFlow, [{ id: 'photo', value: { asset_ids: [id] } }]);
  expect(run.status).toBe('completed');
  expect(resultAssets(run, 'square')).toHaveLength(1);
});
