import { startRunStack, type RunStack } from '../testing/test-runs';
import { clip, clipFile, CORRUPT_MP4, removeClipFiles } from '../testing/media/generate';
import { mediaAgent, refusedAgent, runOnAssets } from '../testing/media/one-node';
import { colourAt } from '../testing/media/pixels';
import { probe } from '../testing/media/probe';
import { downloadTo, resultAssets, uploadAsset } from '../testing/media/runs';
import { peakLevel } from '../testing/media/sound';

// video_concat through the API: clips of different sizes, rates and sound
// joined into one MP4 in the first one's format.

let stack: RunStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Concat', 100));
}, 60_000);
afterAll(async () => {
  await stack.close();
  removeClipFiles();
});

const concatNode = { type: 'video_concat', port: 'videos' };
const near = (rgb: number[], expected: number[]) => rgb.every((v, i) => Math.abs(v - expected[i]!) <= 24);

test('a red clip with sound then a smaller, faster blue one without: the first one’s size and rate, silence under the second', async () => {
  const red = await uploadAsset(stack.gw, apiKey, clip({ color: 'red', seconds: 2, fps: 25, sound: true }), 'red.mp4');
  const blue = await uploadAsset(
    stack.gw,
    apiKey,
    clip({ color: 'blue', width: 160, height: 90, seconds: 1, fps: 30 }),
    'blue.mp4',
  );
  const agent = await mediaAgent(stack.gw, apiKey, concatNode, 2);
  const [id, ...rest] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [red, blue]));
  expect(rest).toEqual([]);
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('mp4'));
  const joined = probe(file);
  expect(joined).toMatchObject({ width: 320, height: 240, frameRate: 25, videoCodec: 'h264', audioCodec: 'aac' });
  // 3 s: 75 frames at 25 fps, give or take one.
  expect(Math.abs(joined.frames! - 75)).toBeLessThanOrEqual(1);
  expect(Math.abs(joined.duration - 3)).toBeLessThanOrEqual(0.05);
  expect(near(colourAt(file, 0.1), [255, 0, 0])).toBe(true);
  expect(near(colourAt(file, 2.9), [0, 0, 255])).toBe(true);
  // 16:9 in 4:3: black bands above and below the blue.
  // 160×90 scaled to 320×180, centred: 30 rows of black above.
  expect(near(colourAt(file, 2.5, { x: 152, y: 4 }), [0, 0, 0])).toBe(true);
  expect(near(colourAt(file, 2.5, { x: 152, y: 40 }), [0, 0, 255])).toBe(true);
  // lavfi's sine peaks at 1/8 of full scale.
  expect(peakLevel(file, 0.2, 1.5)).toBeGreaterThan(0.05);
  expect(peakLevel(file, 2.2)).toBeLessThan(0.01);
});

test('a clip without sound first: the next clip’s sound starts with its picture', async () => {
  const silent = await uploadAsset(stack.gw, apiKey, clip({ color: 'blue', seconds: 1 }), 'silent.mp4');
  const loud = await uploadAsset(stack.gw, apiKey, clip({ color: 'red', seconds: 2, sound: true }), 'loud.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, concatNode, 2);
  const [id] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [silent, loud]));
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('mp4'));
  const joined = probe(file);
  expect(joined.audioCodec).toBe('aac');
  expect(Math.abs(joined.duration - 3)).toBeLessThanOrEqual(0.05);
  expect(peakLevel(file, 0, 0.9)).toBeLessThan(0.01);
  expect(peakLevel(file, 1.1, 1.7)).toBeGreaterThan(0.05);
  expect(near(colourAt(file, 1.5), [255, 0, 0])).toBe(true);
});

test('clips from several upstream nodes, each a list, join in link order; none with sound: no sound track', async () => {
  const clips = ['lime', 'red', 'blue'].map((color) => clip({ color, seconds: 1 }));
  const ids = [];
  for (const [i, bytes] of clips.entries()) ids.push(await uploadAsset(stack.gw, apiKey, bytes, `c${i}.mp4`));
  const agent = await mediaAgent(stack.gw, apiKey, concatNode, 2);
  const [id] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [[ids[0]!, ids[1]!], ids[2]!]));
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('mp4'));
  const joined = probe(file);
  expect(joined.audioCodec).toBeUndefined();
  expect(Math.abs(joined.frames! - 75)).toBeLessThanOrEqual(1);
  expect(near(colourAt(file, 0.5), [0, 255, 0])).toBe(true);
  expect(near(colourAt(file, 1.5), [255, 0, 0])).toBe(true);
  expect(near(colourAt(file, 2.5), [0, 0, 255])).toBe(true);
});

test('a corrupt clip among them: invalid_input naming the port', async () => {
  const good = await uploadAsset(stack.gw, apiKey, clip({ seconds: 1 }), 'good.mp4');
  const bad = await uploadAsset(stack.gw, apiKey, CORRUPT_MP4, 'bad.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, concatNode, 2);
  const run = await runOnAssets(stack.gw, apiKey, agent, [good, bad]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toBe(`Node 'node': the asset ${bad} at input 'videos' cannot be read as a video`);
});

test('video_concat takes no params: one is refused at publication', async () => {
  await refusedAgent(stack.gw, apiKey, { ...concatNode, params: { fps: 30 } });
});
