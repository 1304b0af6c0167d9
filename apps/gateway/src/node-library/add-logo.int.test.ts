import type { Flow } from '@weft/contracts';
import sharp from 'sharp';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { mediaDir } from '../testing/media/files';
import { ffmpeg, ffmpegFile, solid } from '../testing/media/generate';
import { near, pixelsOf } from '../testing/media/pixels';
import { probeFile } from '../testing/media/probe';
import { download, downloadTo, failureOf, resultAssets, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// add_logo on images (sharp) and on every frame of videos (ffmpeg overlay).

const RED = [255, 0, 0];
const WHITE = [255, 255, 255];

let stack: RunStack;
let org: Org;
let logo: string;
const media = mediaDir();
afterAll(media.cleanup);

const logoFlow = (params: Record<string, unknown> = {}, base: 'image_input' | 'video_input' = 'image_input'): Flow => ({
  nodes: [
    { id: 'base', type: base },
    { id: 'logo', type: 'image_input' },
    { id: 'stamp', type: 'add_logo', params, inputs: { image: 'base', logo: 'logo' } },
  ],
  outputs: [{ id: 'stamp', type: base === 'image_input' ? 'images' : 'videos', description: 'With the logo' }],
});

const stamp = (
  base: string[],
  params: Record<string, unknown> = {},
  kind: 'image_input' | 'video_input' = 'image_input',
) =>
  runFlow(stack.gw, org.apiKey, logoFlow(params, kind), [
    { id: 'base', value: { asset_ids: base } },
    { id: 'logo', value: { asset_ids: [logo] } },
  ]);

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Logo', 100);
  // 2:1, so that at scale 0.2 of a 400-pixel base it is 80 × 40.
  logo = await uploadAsset(stack.gw, org.apiKey, await solid(40, 20, '#ff0000'), 'logo.png');
});
afterAll(() => stack.close());

describe('on images', () => {
  let white: string;
  beforeAll(async () => {
    white = await uploadAsset(stack.gw, org.apiKey, await solid(400, 300, '#ffffff'), 'white.png');
  });

  test('bottom-right by default: scale 0.2 of the width, 24 pixels from the edges, nowhere else', async () => {
    const [out] = resultAssets(await stamp([white]), 'stamp');
    const image = await pixelsOf((await download(stack.gw, org.apiKey, out!)).bytes);
    expect([image.width, image.height]).toEqual([400, 300]);
    // The logo covers x 296..375, y 236..275.
    expect(near(image.at(297, 237), RED)).toBe(true);
    expect(near(image.at(374, 274), RED)).toBe(true);
    expect(near(image.at(294, 256), WHITE)).toBe(true);
    expect(near(image.at(377, 256), WHITE)).toBe(true);
    expect(near(image.at(336, 278), WHITE)).toBe(true);
    expect(near(image.at(30, 30), WHITE)).toBe(true);
    let red = 0;
    for (let i = 0; i < image.data.length; i += 4) if (near([...image.data.subarray(i, i + 3)], RED, 40)) red++;
    expect(red).toBe(80 * 40);
  });

  test.each([
    ['top-left', [24 + 40, 24 + 20], [400 - 64, 300 - 44]],
    ['top-right', [400 - 24 - 40, 24 + 20], [64, 44]],
    ['bottom-left', [24 + 40, 300 - 24 - 20], [400 - 64, 44]],
    ['center', [200, 150], [64, 44]],
  ])('%s', async (position, logoAt, elsewhere) => {
    const [out] = resultAssets(await stamp([white], { position }), 'stamp');
    const image = await pixelsOf((await download(stack.gw, org.apiKey, out!)).bytes);
    expect(near(image.at(logoAt[0]!, logoAt[1]!), RED)).toBe(true);
    expect(near(image.at(elsewhere[0]!, elsewhere[1]!), WHITE)).toBe(true);
  });

  test('opacity blends the logo with the image; scale and margin move and size it', async () => {
    const [out] = resultAssets(await stamp([white], { opacity: 0.5, scale: 0.5, margin: 0 }), 'stamp');
    const image = await pixelsOf((await download(stack.gw, org.apiKey, out!)).bytes);
    // 200 × 100 in the very corner: x 200..399, y 200..299, red at half over white.
    expect(near(image.at(399, 299), [255, 128, 128], 3)).toBe(true);
    expect(near(image.at(201, 201), [255, 128, 128], 3)).toBe(true);
    expect(near(image.at(198, 250), WHITE)).toBe(true);
  });

  test('every image of the list gets one, and a JPEG stays a JPEG', async () => {
    const jpeg = await uploadAsset(stack.gw, org.apiKey, await solid(200, 100, '#0000ff', 'jpeg'), 'blue.jpg');
    const outs = resultAssets(await stamp([white, jpeg], { position: 'top-left', margin: 0 }), 'stamp');
    expect(outs).toHaveLength(2);
    const second = (await download(stack.gw, org.apiKey, outs[1]!)).bytes;
    expect((await sharp(second).metadata()).format).toBe('jpeg');
    const image = await pixelsOf(second);
    expect(near(image.at(5, 5), RED, 30)).toBe(true);
    expect(near(image.at(100, 60), [0, 0, 255], 30)).toBe(true);
  });
});

describe('on videos', () => {
  const make = (name: string, args: string[]) => ffmpegFile(media.file(name), args);

  test('every frame carries the logo, the duration and the sound are kept', async () => {
    const video = make('in.mp4', [
      ...['-f', 'lavfi', '-i', 'color=c=white:s=320x240:r=25:d=2'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    ]);
    const id = await uploadAsset(stack.gw, org.apiKey, video, 'in.mp4');
    const [out] = resultAssets(await stamp([id], { scale: 0.25 }, 'video_input'), 'stamp');
    const file = await downloadTo(stack.gw, org.apiKey, out!, media.file('out.mp4'));
    const probe = probeFile(file);
    const videoStream = probe.streams.find((s) => s.codec_type === 'video')!;
    expect([videoStream.width, videoStream.height]).toEqual([320, 240]);
    expect(probe.streams.some((s) => s.codec_type === 'audio')).toBe(true);
    expect(Math.abs(probe.duration - 2)).toBeLessThanOrEqual(1 / 25 + 0.03);
    // The logo is 80 × 40 at x 216..295, y 176..215; check a frame early and one late.
    for (const at of ['0.1', '1.8']) {
      const frame = await pixelsOf(
        ffmpeg(['-ss', at, '-i', file, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-']),
      );
      expect(near(frame.at(256, 196), RED, 40)).toBe(true);
      expect(near(frame.at(100, 100), WHITE, 20)).toBe(true);
    }
  });

  test('a file with no video track fails the run naming the port', async () => {
    const soundOnly = make('sound.mp4', ['-f', 'lavfi', '-i', 'sine=duration=1', '-c:a', 'aac']);
    const id = await uploadAsset(stack.gw, org.apiKey, soundOnly, 'sound.mp4');
    const failure = failureOf(await stamp([id], {}, 'video_input'));
    expect(failure.reason).toBe('invalid_input');
    expect(failure.error).toBe(`Node 'stamp': the asset ${id} at input 'image' has no video track`);
  });
});

test('a logo that cannot be read fails the run, naming the logo port', async () => {
  const white = await uploadAsset(stack.gw, org.apiKey, await solid(50, 50, '#ffffff'), 'w.png');
  const broken = await uploadAsset(
    stack.gw,
    org.apiKey,
    (await solid(64, 64, '#00ff00')).subarray(0, 70),
    'broken.png',
  );
  const run = await runFlow(stack.gw, org.apiKey, logoFlow(), [
    { id: 'base', value: { asset_ids: [white] } },
    { id: 'logo', value: { asset_ids: [broken] } },
  ]);
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toContain(`Node 'stamp': the image at input 'logo' (asset ${broken}) cannot be read`);
});

test('an opacity over 1 or an unknown position is refused at publication', async () => {
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: logoFlow({ opacity: 1.5 }) })).rejects.toThrow(/422/);
  await expect(postAgent(stack.gw.app, org.apiKey, { flow: logoFlow({ position: 'middle' }) })).rejects.toThrow(/422/);
});
