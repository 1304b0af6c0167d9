import type { Flow } from '@weft/contracts';
import sharp from 'sharp';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { solid } from '../testing/media/generate';
import { near, pixelsOf, type Pixels } from '../testing/media/pixels';
import { download, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// screen_mockup: the screenshot inside a device frame drawn by Weft, on a background.

let stack: RunStack;
let org: Org;

const SHOT = [0x12, 0xab, 0x34];

const mockupFlow = (params: Record<string, unknown>): Flow => ({
  nodes: [
    { id: 'shot', type: 'image_input' },
    { id: 'mockup', type: 'screen_mockup', params, inputs: { image: 'shot' } },
  ],
  outputs: [{ id: 'mockup', type: 'images', description: 'In a device' }],
});

// Small enough for a test to reach: a mockup keeps its screenshot's resolution or fails.
const MAX_PIXELS = 3_000_000;

beforeAll(async () => {
  stack = await startRunStack({}, { maxImagePixels: MAX_PIXELS });
  org = await stack.gw.createOrg('Mockup', 100);
});
afterAll(() => stack.close());

// Each frame's screen and a point of its body, in frame units; the mockup is the frame with 8 % of its
// longer side around it, scaled.
test.each([
  ['phone', { x: 20, y: 20, w: 390, h: 840 }, { w: 430, h: 880 }, [10, 440]],
  ['tablet', { x: 40, y: 40, w: 820, h: 1120 }, { w: 900, h: 1200 }, [20, 600]],
  ['laptop', { x: 130, y: 32, w: 1140, h: 712 }, { w: 1400, h: 880 }, [115, 400]],
  ['browser', { x: 1, y: 49, w: 1278, h: 790 }, { w: 1280, h: 840 }, [640, 44]],
])(
  '%s: larger than the screenshot, its colour filling the screen, the frame and background around',
  async (device, screen, frame, bezelAt) => {
    // A screenshot of the screen's shape, a little taller.
    const [shotWidth, shotHeight] = [Math.round(screen.w * 0.6), Math.round(screen.h * 0.65)];
    const screenshot = await uploadAsset(
      stack.gw,
      org.apiKey,
      await solid(shotWidth, shotHeight, '#12ab34'),
      `${device}.png`,
    );
    const run = await runFlow(stack.gw, org.apiKey, mockupFlow({ device, background: '#ff00ff' }), [
      { id: 'shot', value: { asset_ids: [screenshot] } },
    ]);
    const [id] = resultAssets(run, 'mockup');
    const image = await pixelsOf((await download(stack.gw, org.apiKey, id!)).bytes);
    expect(image.width).toBeGreaterThan(shotWidth);
    expect(image.height).toBeGreaterThan(shotHeight);
    const pad = Math.round(Math.max(frame.w, frame.h) * 0.08);
    const scale = image.width / (frame.w + 2 * pad);
    expect(Math.abs(image.height / (frame.h + 2 * pad) - scale)).toBeLessThan(0.01);
    const at = (fx: number, fy: number) => image.at(Math.round((pad + fx) * scale), Math.round((pad + fy) * scale));
    // The screen's centre and points near its corners (inside any rounding) are the screenshot's.
    for (const [fx, fy] of [
      [screen.x + screen.w / 2, screen.y + screen.h / 2],
      [screen.x + 0.15 * screen.w, screen.y + 0.1 * screen.h],
      [screen.x + 0.85 * screen.w, screen.y + 0.9 * screen.h],
    ]) {
      expect(near(at(fx!, fy!), SHOT, 4)).toBe(true);
    }
    // The background is around the frame; the frame is neither screenshot nor background.
    expect(near(image.at(2, 2), [255, 0, 255], 2)).toBe(true);
    const bezel = at(bezelAt[0]!, bezelAt[1]!);
    expect(near(bezel, SHOT, 30) || near(bezel, [255, 0, 255], 30)).toBe(false);
  },
);

/** A screenshot of noise: no two of its rows alike, so that where it is in a mockup is known for sure. */
async function noise(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let seed = width * 7919 + height;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    data[i] = seed >> 16;
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Every place where the whole of `shot` is found, pixel for pixel, in `image`. */
function placesOf(image: Pixels, shot: Pixels): { x: number; y: number }[] {
  const same = (x: number, y: number, sx: number, sy: number) =>
    image.at(x, y).every((v, c) => v === shot.at(sx, sy)[c]);
  const found: { x: number; y: number }[] = [];
  for (let y = 0; y + shot.height <= image.height; y++) {
    for (let x = 0; x + shot.width <= image.width; x++) {
      if (!same(x, y, 0, 0) || !same(x + 1, y, 1, 0) || !same(x, y + 1, 0, 1)) continue;
      let whole = true;
      for (let sy = 0; whole && sy < shot.height; sy++) {
        for (let sx = 0; whole && sx < shot.width; sx++) whole = same(x + sx, y + sy, sx, sy);
      }
      if (whole) found.push({ x, y });
    }
  }
  return found;
}

describe('the screenshot keeps its own pixels, the frame is drawn around it', () => {
  const SCREEN: Record<string, number[]> = {
    phone: [0, 0, 0],
    tablet: [0, 0, 0],
    laptop: [0, 0, 0],
    browser: [255, 255, 255],
  };
  test.each(
    ['phone', 'tablet', 'laptop', 'browser'].flatMap((device) => [
      [device, 'portrait', 260, 420],
      [device, 'landscape', 420, 260],
    ]),
  )('%s, %s screenshot', async (device, orientation, width, height) => {
    const bytes = await noise(width as number, height as number);
    const asset = await uploadAsset(stack.gw, org.apiKey, bytes, `${device}-${orientation}.png`);
    const run = await runFlow(stack.gw, org.apiKey, mockupFlow({ device, background: '#ff00ff' }), [
      { id: 'shot', value: { asset_ids: [asset] } },
    ]);
    const [id] = resultAssets(run, 'mockup');
    const image = await pixelsOf((await download(stack.gw, org.apiKey, id!)).bytes);
    const shot = await pixelsOf(bytes);
    expect(image.width).toBeGreaterThan(shot.width);
    expect(image.height).toBeGreaterThan(shot.height);
    const places = placesOf(image, shot);
    expect(places).toHaveLength(1);
    const [{ x, y }] = places as [{ x: number; y: number }];
    // Every screen is centred across its device, and the device across the mockup.
    expect(Math.abs(x + shot.width / 2 - image.width / 2)).toBeLessThanOrEqual(1);
    // A phone or a tablet is held the way of the screenshot; a laptop or a browser is landscape.
    const landscape = device === 'laptop' || device === 'browser' || orientation === 'landscape';
    expect(image.width > image.height).toBe(landscape);
    if (landscape && orientation === 'portrait') {
      // Pillarboxed: the screen's own colour on either side of the screenshot.
      const middle = y + Math.floor(shot.height / 2);
      expect(near(image.at(x - 4, middle), SCREEN[device]!, 0)).toBe(true);
      expect(near(image.at(x + shot.width + 3, middle), SCREEN[device]!, 0)).toBe(true);
    }
  });

  test('a screenshot whose mockup would be over the pixel limit fails, naming it', async () => {
    const asset = await uploadAsset(stack.gw, org.apiKey, await solid(1500, 1500, '#12ab34'), 'large.png');
    const run = await runFlow(stack.gw, org.apiKey, mockupFlow({ device: 'laptop' }), [
      { id: 'shot', value: { asset_ids: [asset] } },
    ]);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toMatch(
      new RegExp(
        `^Node 'mockup': the screenshot at input 'image' \\(asset ${asset}\\) is 1500×1500; a laptop around it ` +
          `at that resolution would be \\d+×\\d+, over the limit of ${MAX_PIXELS} pixels`,
      ),
    );
  });
});

test('a JPEG screenshot gives a JPEG; the format is kept', async () => {
  const jpeg = await uploadAsset(stack.gw, org.apiKey, await solid(200, 400, '#12ab34', 'jpeg'), 'shot.jpg');
  const run = await runFlow(stack.gw, org.apiKey, mockupFlow({}), [{ id: 'shot', value: { asset_ids: [jpeg] } }]);
  const [id] = resultAssets(run, 'mockup');
  const meta = await sharp((await download(stack.gw, org.apiKey, id!)).bytes).metadata();
  expect(meta.format).toBe('jpeg');
  expect(meta.width!).toBeGreaterThan(200);
});

test('an unknown device is refused at publication', async () => {
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: mockupFlow({ device: 'watch' }) })).rejects.toThrow(/422/);
});
