import type { Flow } from '@weft/contracts';
import sharp from 'sharp';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { near, pixelsOf } from '../testing/media/pixels';
import { assetRecord, download, failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// vectorize: potrace, one colour (black and white) or several (one traced shape per colour).

let stack: RunStack;
let org: Org;
let art: string;

const vectorFlow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'art', type: 'image_input' },
    { id: 'svg', type: 'vectorize', params, inputs: { image: 'art' } },
  ],
  outputs: [{ id: 'svg', type: 'images', description: 'Traced' }],
});

/** White, with a red disc, a blue square and a black bar: line art of three colours on a background. */
async function drawing(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="160">
    <rect width="240" height="160" fill="#ffffff"/>
    <circle cx="60" cy="60" r="40" fill="#e11d48"/>
    <rect x="130" y="20" width="80" height="80" fill="#2563eb"/>
    <rect x="20" y="120" width="200" height="24" fill="#000000"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The distinct fill colours of an SVG's shapes. */
function fills(svg: string): Set<string> {
  return new Set([...svg.matchAll(/fill="([^"]+)"/g)].map((m) => m[1]!.toLowerCase()).filter((f) => f !== 'none'));
}

async function traced(params: Record<string, unknown>) {
  const run = await runFlow(stack.gw, org.apiKey, vectorFlow(params), [{ id: 'art', value: { asset_ids: [art] } }]);
  const [id] = resultAssets(run, 'svg');
  return { id: id!, svg: (await download(stack.gw, org.apiKey, id!)).bytes.toString('utf8') };
}

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Vector', 100);
  art = await uploadAsset(stack.gw, org.apiKey, await drawing(), 'art.png');
});
afterAll(() => stack.close());

test('one colour: a valid SVG asset in black only, which renders the shapes where they were', async () => {
  const { id, svg } = await traced({});
  expect(svg.startsWith('<svg')).toBe(true);
  expect(fills(svg)).toEqual(new Set(['black']));
  expect(await assetRecord(stack.gw, org.apiKey, id)).toMatchObject({ media_type: 'image', media_extension: 'svg' });
  const rendered = await pixelsOf(await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).png().toBuffer());
  expect([rendered.width, rendered.height]).toEqual([240, 160]);
  expect(near(rendered.at(120, 132), [0, 0, 0], 10)).toBe(true);
  expect(near(rendered.at(120, 110), [255, 255, 255], 10)).toBe(true);
});

test('four colours: one fill per colour of the image, each where that colour was', async () => {
  const { svg } = await traced({ colors: 4 });
  const used = fills(svg);
  expect(used.size).toBe(4);
  const rendered = await pixelsOf(await sharp(Buffer.from(svg)).png().toBuffer());
  expect([rendered.width, rendered.height]).toEqual([240, 160]);
  expect(near(rendered.at(60, 60), [0xe1, 0x1d, 0x48], 24)).toBe(true);
  expect(near(rendered.at(170, 60), [0x25, 0x63, 0xeb], 24)).toBe(true);
  expect(near(rendered.at(120, 132), [0, 0, 0], 24)).toBe(true);
  expect(near(rendered.at(120, 110), [255, 255, 255], 24)).toBe(true);
});

test('two colours of a four-colour image: exactly two fills', async () => {
  expect(fills((await traced({ colors: 2 })).svg).size).toBe(2);
});

test('an image that cannot be decoded fails the run, naming the port', async () => {
  const broken = await uploadAsset(stack.gw, org.apiKey, (await drawing()).subarray(0, 80), 'broken.png');
  const run = await runFlow(stack.gw, org.apiKey, vectorFlow(), [{ id: 'art', value: { asset_ids: [broken] } }]);
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`Node 'svg': the image at input 'image' (asset ${broken}) cannot be read`);
});

test('more than 16 colours is refused at publication', async () => {
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: vectorFlow({ colors: 17 }) })).rejects.toThrow(/422/);
});
