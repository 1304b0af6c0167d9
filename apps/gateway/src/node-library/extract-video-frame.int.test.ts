import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { clipFile, CORRUPT_MP4, removeClipFiles, soundOnlyMp4, stripes } from '../testing/media/generate';
import { mediaAgent, refusedAgent, runOnAssets } from '../testing/media/one-node';
import { downloadTo, resultAssets, uploadAsset } from '../testing/media/runs';

// extract_video_frame through the API: the PNG of the frame asked for.

let stack: RunStack;
let apiKey: string;
let rgb: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Frames', 100));
  // Blue for less than the second before the end: `last` is not merely a frame near the end.
  rgb = await uploadAsset(stack.gw, apiKey, stripes(['red', 'lime', 'blue'], { durations: [1, 1, 0.4] }), 'rgb.mp4');
}, 60_000);
afterAll(async () => {
  await stack.close();
  removeClipFiles();
});

const frameNode = (at?: unknown) => ({
  type: 'extract_video_frame',
  port: 'video',
  output: 'images' as const,
  ...(at !== undefined ? { params: { at } } : {}),
});

/** The PNG the run produced: its size and the colour at its centre. */
async function producedFrame(at?: unknown) {
  const agent = await mediaAgent(stack.gw, apiKey, frameNode(at));
  const [id] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [rgb]));
  const png = readFileSync(await downloadTo(stack.gw, apiKey, id!, clipFile('png')));
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const centre = ((info.height >> 1) * info.width + (info.width >> 1)) * 3;
  return {
    format: (await sharp(png).metadata()).format,
    width: info.width,
    height: info.height,
    rgb: [...data.subarray(centre, centre + 3)],
  };
}

/** Whether `rgb` is `expected` give or take the encoder's rounding. */
const near = (rgb: number[], expected: number[]) => rgb.every((v, i) => Math.abs(v - expected[i]!) <= 24);

test.each([
  ['first (the default)', undefined, [255, 0, 0]],
  ['first', 'first', [255, 0, 0]],
  ['1.5 s', 1.5, [0, 255, 0]],
  ['last', 'last', [0, 0, 255]],
  ['2.39 s (after the last frame began)', 2.39, [0, 0, 255]],
])('at %s: a PNG of the video’s size showing that frame', async (_name, at, colour) => {
  const frame = await producedFrame(at);
  expect(frame).toMatchObject({ format: 'png', width: 320, height: 240 });
  expect(near(frame.rgb, colour)).toBe(true);
});

test('a time past the end: invalid_input naming the port', async () => {
  const agent = await mediaAgent(stack.gw, apiKey, frameNode(2.5));
  const run = await runOnAssets(stack.gw, apiKey, agent, [rgb]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toMatch(
    /^Node 'node': the asset .* at input 'video' lasts 2.4 s: params.at \(2.5 s\) is past its end$/,
  );
});

test.each([
  ['a corrupt video', CORRUPT_MP4, /at input 'video' cannot be read as a video$/],
  ['sound without picture', soundOnlyMp4(), /at input 'video' has no video track$/],
])('%s: invalid_input naming the port', async (_name, bytes, message) => {
  const id = await uploadAsset(stack.gw, apiKey, bytes, 'bad.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, frameNode());
  const run = await runOnAssets(stack.gw, apiKey, agent, [id]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toMatch(message);
});

test('params.at other than seconds, first or last is refused at publication', async () => {
  const body = await refusedAgent(stack.gw, apiKey, frameNode('middle'));
  expect(JSON.stringify(body.detail)).toContain('at');
  await refusedAgent(stack.gw, apiKey, frameNode(-1));
});
