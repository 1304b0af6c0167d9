import { startRunStack, type RunStack } from '../testing/test-runs';
import { clip, clipFile, CORRUPT_MP4, removeClipFiles, stripes } from '../testing/media/generate';
import { mediaAgent, refusedAgent, runOnAssets } from '../testing/media/one-node';
import { colourAt } from '../testing/media/pixels';
import { probe } from '../testing/media/probe';
import { downloadTo, resultAssets, uploadAsset } from '../testing/media/runs';
import { peakLevel } from '../testing/media/sound';

// video_edit through the API: cuts, crops, resizes, frame rate and mute,
// applied in order.

let stack: RunStack;
let apiKey: string;
/** Red, lime, blue, white, one second each, 320×240 at 25 fps, a tone throughout. */
let stripesWithSound: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Edit', 100));
  stripesWithSound = await uploadAsset(
    stack.gw,
    apiKey,
    stripes(['red', 'lime', 'blue', 'white'], { sound: true }),
    'stripes.mp4',
  );
}, 60_000);
afterAll(async () => {
  await stack.close();
  removeClipFiles();
});

const editNode = (edits: unknown[]) => ({ type: 'video_edit', port: 'video', params: { edits } });
const near = (rgb: number[], expected: number[]) => rgb.every((v, i) => Math.abs(v - expected[i]!) <= 24);

async function edited(edits: unknown[], asset = stripesWithSound) {
  const agent = await mediaAgent(stack.gw, apiKey, editNode(edits));
  const [id] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [asset]));
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('mp4'));
  return { file, probed: probe(file) };
}

test('cut keeps the ranges, in the video’s order, sound and picture together', async () => {
  const { file, probed } = await edited([
    {
      cut: [
        [3, 4],
        [0, 1],
        [0.5, 1.5],
      ],
    },
  ]);
  // Kept: 0–1.5 (red, then half of lime) and 3–4 (white): 2.5 s.
  expect(probed).toMatchObject({ width: 320, height: 240, frameRate: 25, audioCodec: 'aac' });
  expect(Math.abs(probed.frames! - 62.5)).toBeLessThanOrEqual(1);
  expect(Math.abs(probed.duration - 2.5)).toBeLessThanOrEqual(0.05);
  expect(near(colourAt(file, 0.5), [255, 0, 0])).toBe(true);
  expect(near(colourAt(file, 1.2), [0, 255, 0])).toBe(true);
  expect(near(colourAt(file, 2), [255, 255, 255])).toBe(true);
  expect(peakLevel(file, 1.6, 0.8)).toBeGreaterThan(0.05);
});

test('edits apply in order: cut, then crop, resize and frame rate of what is left', async () => {
  const { file, probed } = await edited([
    { cut: [[2, 4]] },
    { cut: [[1, 2]] },
    { crop: { x: 160, y: 0, width: 160, height: 120 } },
    { resize: { width: 200, height: 100 } },
    { fps: 10 },
  ]);
  // The second cut is of the 2 s the first one left: its second half, white.
  expect(probed).toMatchObject({ width: 200, height: 100, frameRate: 10, audioCodec: 'aac' });
  expect(Math.abs(probed.frames! - 10)).toBeLessThanOrEqual(1);
  expect(Math.abs(probed.duration - 1)).toBeLessThanOrEqual(0.1);
  expect(near(colourAt(file, 0.5), [255, 255, 255])).toBe(true);
});

test('mute: no sound track; an odd crop loses its last column to H.264', async () => {
  const { probed } = await edited([{ mute: true }, { crop: { x: 10, y: 10, width: 101, height: 60 } }]);
  expect(probed.audioCodec).toBeUndefined();
  expect(probed).toMatchObject({ width: 100, height: 60 });
  expect(Math.abs(probed.frames! - 100)).toBeLessThanOrEqual(1);
});

test.each([
  [
    'a cut range past the end',
    [
      {
        cut: [
          [0, 1],
          [3, 6],
        ],
      },
    ],
    /at input 'video' cannot be edited: params.edits\[0\] keeps \[3, 6\], past the end of the video \(4 s at that point\)$/,
  ],
  [
    'a cut past what an earlier cut left',
    [{ cut: [[0, 2]] }, { cut: [[1, 3]] }],
    /params.edits\[1\] keeps \[1, 3\], past the end of the video \(2 s at that point\)$/,
  ],
  [
    'a crop outside the frame',
    [{ crop: { x: 200, y: 0, width: 160, height: 120 } }],
    /at input 'video' cannot be edited: params.edits\[0\] crops 160×120 at \(200, 0\), outside the frame \(320×240 at that point\)$/,
  ],
  [
    'a crop outside the frame an earlier resize left',
    [{ resize: { width: 100, height: 100 } }, { crop: { x: 0, y: 0, width: 160, height: 120 } }],
    /params.edits\[1\] crops 160×120 at \(0, 0\), outside the frame \(100×100 at that point\)$/,
  ],
])('%s: invalid_input naming the port', async (_name, edits, message) => {
  const agent = await mediaAgent(stack.gw, apiKey, editNode(edits));
  const run = await runOnAssets(stack.gw, apiKey, agent, [stripesWithSound]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toMatch(message);
});

test('a corrupt video: invalid_input naming the port', async () => {
  const bad = await uploadAsset(stack.gw, apiKey, CORRUPT_MP4, 'bad.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, editNode([{ mute: true }]));
  const run = await runOnAssets(stack.gw, apiKey, agent, [bad]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toBe(`Node 'node': the asset ${bad} at input 'video' cannot be read as a video`);
});

test('each video of the input gives its own output', async () => {
  const small = await uploadAsset(stack.gw, apiKey, clip({ width: 160, height: 120, seconds: 1 }), 'small.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, editNode([{ resize: { width: 64, height: 48 } }]));
  const ids = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [[stripesWithSound, small]]));
  expect(ids).toHaveLength(2);
  const sizes = [];
  for (const id of ids) sizes.push(probe(await downloadTo(stack.gw, apiKey, id, clipFile('mp4'))));
  expect(sizes.map((p) => [p.width, p.height, Math.round(p.duration)])).toEqual([
    [64, 48, 4],
    [64, 48, 1],
  ]);
});

test.each([
  ['no edits', []],
  ['an unknown edit', [{ rotate: 90 }]],
  ['a negative crop origin', [{ crop: { x: -1, y: 0, width: 10, height: 10 } }]],
  ['a range that ends before it starts', [{ cut: [[2, 1]] }]],
  ['mute: false', [{ mute: false }]],
])('%s is refused at publication', async (_name, edits) => {
  await refusedAgent(stack.gw, apiKey, editNode(edits));
});
