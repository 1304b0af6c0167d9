import fs from 'node:fs';
import { deflateSync } from 'node:zlib';
import type { Flow } from '@weft/contracts';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { solid } from '../testing/media/generate';
import { near, pixelsOf, type Pixels } from '../testing/media/pixels';
import { download, failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// composer: layers drawn bottom first onto one image.

let stack: RunStack;
let org: Org;
let photo: string;
let logo: string;
let font: string;

const BG = [0xee, 0xee, 0xee];

/**
 * DejaVu Sans Mono under a family name no font installed here has: drawn in
 * it only if the node hands Pango the file itself (a lookup by name would
 * fall back to the default font).
 */
function unknownFamilyFont(family = 'Weft Test Mono A', file = 'DejaVuSansMono.ttf'): Buffer {
  const bytes = Buffer.from(fs.readFileSync(`/usr/share/fonts/truetype/dejavu/${file}`));
  const swap = (from: string, to: string) => {
    for (const [a, b] of [
      [Buffer.from(from, 'latin1'), Buffer.from(to, 'latin1')],
      [Buffer.from(from, 'utf16le').swap16(), Buffer.from(to, 'utf16le').swap16()],
    ] as const) {
      for (let i = bytes.indexOf(a); i >= 0; i = bytes.indexOf(a, i + a.length)) b.copy(bytes, i);
    }
  };
  swap('DejaVu Sans Mono', family);
  return bytes;
}

/** The same font packed as WOFF 1.0: each table deflated. */
function woff(ttf: Buffer): Buffer {
  const numTables = ttf.readUInt16BE(4);
  const entries: Buffer[] = [];
  const bodies: Buffer[] = [];
  let offset = 44 + numTables * 20;
  for (let i = 0; i < numTables; i++) {
    const record = 12 + i * 16;
    const [checksum, at, length] = [4, 8, 12].map((d) => ttf.readUInt32BE(record + d));
    const table = ttf.subarray(at!, at! + length!);
    const packed = deflateSync(table);
    const body = packed.length < table.length ? packed : table;
    const entry = Buffer.alloc(20);
    ttf.copy(entry, 0, record, record + 4);
    [offset, body.length, length!, checksum!].forEach((v, j) => entry.writeUInt32BE(v, 4 + j * 4));
    entries.push(entry);
    const padded = Buffer.alloc((body.length + 3) & ~3);
    body.copy(padded);
    bodies.push(padded);
    offset += padded.length;
  }
  const header = Buffer.alloc(44);
  header.write('wOFF', 0, 'latin1');
  header.writeUInt32BE(ttf.readUInt32BE(0), 4);
  header.writeUInt32BE(offset, 8);
  header.writeUInt16BE(numTables, 12);
  header.writeUInt32BE(ttf.length, 16);
  return Buffer.concat([header, ...entries, ...bodies]);
}

/** The same font packed as WOFF2, by the decoder's own encoder (wawoff2, untyped). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const woff2 = require('wawoff2/compress') as (sfnt: Buffer) => Promise<Uint8Array>;

const composeFlow = (layers: object[], size = { width: 300, height: 200 }): Flow => ({
  nodes: [
    { id: 'photo', type: 'image_input' },
    { id: 'brand', type: 'brand_system_input' },
    { id: 'headline', type: 'text_input' },
    {
      id: 'compose',
      type: 'composer',
      params: { ...size, layers },
      inputs: { photo: 'photo', brand: 'brand', headline: 'headline' },
    },
  ],
  outputs: [{ id: 'compose', type: 'images', description: 'The picture' }],
});

async function compose(layers: object[], size?: { width: number; height: number }) {
  return runFlow(stack.gw, org.apiKey, composeFlow(layers, size), [
    { id: 'photo', value: { asset_ids: [photo] } },
    { id: 'brand', value: { name: 'Acme', colors: ['#ff0000'], logo, fonts: [font] } },
    { id: 'headline', value: 'Hello from a port' },
  ]);
}

async function composed(layers: object[], size?: { width: number; height: number }): Promise<Pixels> {
  const [id] = resultAssets(await compose(layers, size), 'compose');
  return pixelsOf((await download(stack.gw, org.apiKey, id!)).bytes);
}

/** Pixels in the box that differ from the background. */
function inked(image: Pixels, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (!near(image.at(x, y), BG, 30)) n++;
  return n;
}

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Composer', 100);
  photo = await uploadAsset(stack.gw, org.apiKey, await solid(100, 50, '#0000ff'), 'photo.png');
  logo = await uploadAsset(stack.gw, org.apiKey, await solid(20, 20, '#00ff00'), 'logo.png');
  font = await uploadAsset(stack.gw, org.apiKey, unknownFamilyFont(), 'weft-mono.ttf');
});
afterAll(() => stack.close());

test('colour, image and logo layers, bottom first, at their boxes; the size asked', async () => {
  const image = await composed([
    { kind: 'color', color: '#eeeeee' },
    { kind: 'image', port: 'photo', x: 10, y: 20, width: 100, height: 50 },
    // The brand's logo, 40 × 40, over the photo's right end.
    { kind: 'logo', port: 'brand', x: 90, y: 30, width: 40, height: 40 },
    // Partly outside the canvas: clipped, not refused.
    { kind: 'image', port: 'photo', x: 250, y: 180, width: 100, height: 50 },
  ]);
  expect([image.width, image.height]).toEqual([300, 200]);
  expect(near(image.at(5, 5), BG)).toBe(true);
  expect(near(image.at(20, 30), [0, 0, 255])).toBe(true);
  expect(near(image.at(100, 60), [0, 255, 0])).toBe(true);
  expect(near(image.at(125, 40), [0, 255, 0])).toBe(true);
  expect(near(image.at(135, 40), BG)).toBe(true);
  expect(near(image.at(299, 199), [0, 0, 255])).toBe(true);
  expect(near(image.at(240, 190), BG)).toBe(true);
});

test('text is drawn inside its box and nowhere else, from params or from a port', async () => {
  const image = await composed([
    { kind: 'color', color: '#eeeeee' },
    { kind: 'text', text: 'Weft', x: 20, y: 20, font_size: 40, color: '#000000' },
    { kind: 'text', port: 'headline', x: 20, y: 120, width: 260, font_size: 20, color: '#ff0000' },
  ]);
  expect(inked(image, 20, 20, 140, 70)).toBeGreaterThan(200);
  expect(inked(image, 20, 120, 280, 150)).toBeGreaterThan(200);
  // Between and around the two texts, the background only.
  expect(inked(image, 0, 75, 300, 115)).toBe(0);
  expect(inked(image, 0, 0, 300, 18)).toBe(0);
  let red = 0;
  for (let y = 120; y < 150; y++) for (let x = 20; x < 280; x++) if (near(image.at(x, y), [255, 0, 0], 60)) red++;
  expect(red).toBeGreaterThan(50);
});

test('a font asset is really used: the same text renders otherwise than in the default font', async () => {
  const layer = { kind: 'text', text: 'iiiiiiii', x: 10, y: 10, font_size: 40, color: '#000000' };
  const plain = await composed([{ kind: 'color', color: '#eeeeee' }, layer]);
  const custom = await composed([
    { kind: 'color', color: '#eeeeee' },
    { ...layer, font },
  ]);
  const extent = (image: Pixels) => {
    let right = 0;
    for (let x = 0; x < image.width; x++) if (inked(image, x, 0, x + 1, image.height) > 0) right = x;
    return right;
  };
  // Monospaced i's take a full advance each: the line is far longer than in DejaVu Sans.
  expect(extent(custom)).toBeGreaterThan(extent(plain) + 60);
});

// Each under a family of its own, which Pango could not have met in another file.
test.each([
  ['WOFF', async () => woff(unknownFamilyFont('Weft Test Mono W'))],
  ['WOFF2', async () => Buffer.from(await woff2(unknownFamilyFont('Weft Test Mono 2')))],
])('a %s font is used as well', async (format, bytes) => {
  const webFont = await uploadAsset(stack.gw, org.apiKey, await bytes(), `weft-mono.${format.toLowerCase()}`);
  const layer = { kind: 'text', text: 'iiiiiiii', x: 10, y: 10, font_size: 40, color: '#000000' };
  const custom = await composed([
    { kind: 'color', color: '#eeeeee' },
    { ...layer, font },
  ]);
  const web = await composed([
    { kind: 'color', color: '#eeeeee' },
    { ...layer, font: webFont },
  ]);
  expect(Buffer.compare(web.data, custom.data)).toBe(0);
});

test('two fonts naming the same family are each drawn in their own glyphs', async () => {
  const bold = await uploadAsset(
    stack.gw,
    org.apiKey,
    unknownFamilyFont('Weft Test Mono A', 'DejaVuSansMono-Bold.ttf'),
    'b.ttf',
  );
  const layer = { kind: 'text', text: 'iiiiiiii', x: 10, y: 10, font_size: 40, color: '#000000' };
  const regular = await composed([
    { kind: 'color', color: '#eeeeee' },
    { ...layer, font },
  ]);
  const heavy = await composed([
    { kind: 'color', color: '#eeeeee' },
    { ...layer, font: bold },
  ]);
  expect(inked(heavy, 0, 0, 300, 200)).toBeGreaterThan(inked(regular, 0, 0, 300, 200) * 1.2);
});

test('a font asset that is not a font fails the run, naming the layer', async () => {
  const failure = failureOf(
    await compose([
      { kind: 'color', color: '#eeeeee' },
      { kind: 'text', text: 'x', font: photo },
    ]),
  );
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`Node 'compose': layer 1 (text): the font asset ${photo} is not a font`);
});

test('a layer naming a port nothing is linked to fails the run, naming the layer', async () => {
  const failure = failureOf(await compose([{ kind: 'image', port: 'nothing' }]));
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`layer 0 (image): no input is linked at port 'nothing'`);
});

test('a colour that is not hex or an unknown layer kind is refused at publication', async () => {
  for (const layers of [[{ kind: 'color', color: 'red' }], [{ kind: 'video', port: 'photo' }]]) {
    await expect(postAgent(stack.gw.app, org.apiKey, { flow: composeFlow(layers) })).rejects.toThrow(/422/);
  }
});
