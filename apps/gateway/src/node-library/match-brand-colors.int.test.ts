import type { Flow } from '@weft/contracts';
import sharp from 'sharp';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { pixelsOf } from '../testing/media/pixels';
import { download, failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// match_brand_colors: every pixel onto its nearest palette colour (CIEDE2000), blended by strength.

let stack: RunStack;
let org: Org;
let gradient: string;
let gradientPixels: Buffer;

const PALETTE = ['#1d4ed8', '#f59e0b', '#ffffff', '#111111'];
const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

const brandFlow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'photo', type: 'image_input' },
    { id: 'brand', type: 'brand_system_input', required: false },
    { id: 'match', type: 'match_brand_colors', params, inputs: { image: 'photo', brand: 'brand' } },
  ],
  outputs: [{ id: 'match', type: 'images', description: 'On brand' }],
});

const paramsFlow = (params: Record<string, unknown>): Flow => ({
  nodes: [
    { id: 'photo', type: 'image_input' },
    { id: 'match', type: 'match_brand_colors', params, inputs: { image: 'photo' } },
  ],
  outputs: [{ id: 'match', type: 'images', description: 'On brand' }],
});

/** A horizontal hue sweep over a vertical light-to-dark ramp: many colours. */
async function sweep(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.round((x / width) * 255);
      raw[i + 1] = Math.round((y / height) * 255);
      raw[i + 2] = Math.round(((x + y) / (width + height)) * 255);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Palette', 100);
  const bytes = await sweep(120, 80);
  gradientPixels = (await pixelsOf(bytes)).data;
  gradient = await uploadAsset(stack.gw, org.apiKey, bytes, 'sweep.png');
});
afterAll(() => stack.close());

async function mapped(run: Awaited<ReturnType<typeof runFlow>>) {
  const [id] = resultAssets(run, 'match');
  return pixelsOf((await download(stack.gw, org.apiKey, id!)).bytes);
}

test('at strength 1 every pixel is a colour of the brand’s palette, and several of them are used', async () => {
  const run = await runFlow(stack.gw, org.apiKey, brandFlow(), [
    { id: 'photo', value: { asset_ids: [gradient] } },
    { id: 'brand', value: { name: 'Acme', colors: PALETTE } },
  ]);
  const image = await mapped(run);
  expect([image.width, image.height]).toEqual([120, 80]);
  const palette = new Set(PALETTE.map((hex) => rgb(hex).join(',')));
  const used = new Set<string>();
  for (let i = 0; i < image.data.length; i += 4) used.add([...image.data.subarray(i, i + 3)].join(','));
  expect([...used].filter((c) => !palette.has(c))).toEqual([]);
  expect(used.size).toBeGreaterThanOrEqual(3);
});

test('the nearest colour is perceptual: a dark pixel goes to near-black, a light one to white', async () => {
  const run = await runFlow(stack.gw, org.apiKey, paramsFlow({ colors: PALETTE }), [
    { id: 'photo', value: { asset_ids: [gradient] } },
  ]);
  const image = await mapped(run);
  expect(image.at(0, 0).slice(0, 3)).toEqual(rgb('#111111'));
  expect(image.at(119, 79).slice(0, 3)).toEqual(rgb('#ffffff'));
});

test('strength blends between the image and its mapping', async () => {
  const full = await mapped(
    await runFlow(stack.gw, org.apiKey, paramsFlow({ colors: PALETTE }), [
      { id: 'photo', value: { asset_ids: [gradient] } },
    ]),
  );
  const half = await mapped(
    await runFlow(stack.gw, org.apiKey, paramsFlow({ colors: PALETTE, strength: 0.5 }), [
      { id: 'photo', value: { asset_ids: [gradient] } },
    ]),
  );
  const none = await mapped(
    await runFlow(stack.gw, org.apiKey, paramsFlow({ colors: PALETTE, strength: 0 }), [
      { id: 'photo', value: { asset_ids: [gradient] } },
    ]),
  );
  expect(Buffer.compare(none.data, gradientPixels)).toBe(0);
  let worst = 0;
  for (let i = 0; i < half.data.length; i++) {
    if (i % 4 === 3) continue;
    worst = Math.max(worst, Math.abs(half.data[i]! - (gradientPixels[i]! + full.data[i]!) / 2));
  }
  expect(worst).toBeLessThanOrEqual(1);
});

test('no palette (a brand without colours, no params.colors) fails the run', async () => {
  const run = await runFlow(stack.gw, org.apiKey, brandFlow(), [
    { id: 'photo', value: { asset_ids: [gradient] } },
    { id: 'brand', value: { name: 'Colourless' } },
  ]);
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`Node 'match': no palette`);
  expect(failure.error).toContain(`input 'brand'`);
});

test('params.colors stands in when the brand is left out', async () => {
  const run = await runFlow(stack.gw, org.apiKey, brandFlow({ colors: ['#000000', '#ffffff'] }), [
    { id: 'photo', value: { asset_ids: [gradient] } },
  ]);
  const image = await mapped(run);
  for (let i = 0; i < image.data.length; i += 4) expect([0, 255]).toContain(image.data[i]);
});

test('a colour that is not hex or a strength over 1 is refused at publication', async () => {
  for (const params of [{ colors: ['blue'] }, { colors: ['#000'], strength: 2 }]) {
    await expect(postAgent(stack.gw.app, org.apiKey, { flow: paramsFlow(params) })).rejects.toThrow(/422/);
  }
});
