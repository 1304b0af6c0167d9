import { startRunStack, type RunStack } from '../testing/test-runs';
import { clip, clipFile, CORRUPT_MP4, removeClipFiles, stripes, tone } from '../testing/media/generate';
import { mediaAgent, refusedAgent, runOnAssets } from '../testing/media/one-node';
import { colourAt } from '../testing/media/pixels';
import { probe } from '../testing/media/probe';
import { downloadTo, resultAssets, uploadAsset } from '../testing/media/runs';
import { pitchOf } from '../testing/media/sound';

// trim_speed through the API: video and audio cut and played faster or
// slower, the pitch of the sound kept.

let stack: RunStack;
let apiKey: string;
/** 4 s, 320×240 at 25 fps, a tone of 440 Hz for 2 s, then 880 Hz. */
let withSound: string;
/** Red, lime, blue, one second each. */
let rgb: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Trim', 100));
  withSound = await uploadAsset(stack.gw, apiKey, clip({ seconds: 4, sound: 'rising' }), 'sound.mp4');
  rgb = await uploadAsset(stack.gw, apiKey, stripes(['red', 'lime', 'blue']), 'rgb.mp4');
}, 60_000);
afterAll(async () => {
  await stack.close();
  removeClipFiles();
});

const trimNode = (params: Record<string, unknown>) => ({ type: 'trim_speed', port: 'media', params });
const near = (rgb: number[], expected: number[]) => rgb.every((v, i) => Math.abs(v - expected[i]!) <= 24);
const FRAME = 1 / 25;

async function trimmed(params: Record<string, unknown>, asset = withSound) {
  const agent = await mediaAgent(stack.gw, apiKey, trimNode(params));
  const [id] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [asset]));
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('mp4'));
  return { file, probed: probe(file) };
}

// The tone rises from 440 to 880 Hz at 2 s: where each is heard tells which part of the
// source plays when; that each is still 440 or 880 Hz tells that the pitch was kept.
test.each([
  [
    'the whole clip at speed 2: half as long',
    { speed: 2 },
    2,
    [
      [0.2, 0.6, 440],
      [1.2, 0.6, 880],
    ],
  ],
  [
    '1–3 s at speed 2',
    { start: 1, end: 3, speed: 2 },
    1,
    [
      [0.1, 0.3, 440],
      [0.6, 0.3, 880],
    ],
  ],
  ['0–1 s at speed 0.5: twice as long', { end: 1, speed: 0.5 }, 2, [[0.2, 1.6, 440]]],
  [
    'the whole clip at speed 4 (atempo chained)',
    { speed: 4 },
    1,
    [
      [0.1, 0.3, 440],
      [0.6, 0.3, 880],
    ],
  ],
  [
    '1.5–2.5 s at speed 0.25 (atempo chained)',
    { start: 1.5, end: 2.5, speed: 0.25 },
    4,
    [
      [0.2, 1.6, 440],
      [2.2, 1.6, 880],
    ],
  ],
])('%s, the frame rate and the pitch kept', async (_name, params, seconds, heard) => {
  const { file, probed } = await trimmed(params);
  expect(probed).toMatchObject({ width: 320, height: 240, frameRate: 25, videoCodec: 'h264', audioCodec: 'aac' });
  expect(Math.abs(probed.frames! / 25 - seconds)).toBeLessThanOrEqual(FRAME + 1e-9);
  expect(Math.abs(probed.duration - seconds)).toBeLessThanOrEqual(0.05);
  for (const [from, length, hz] of heard) expect(Math.abs(pitchOf(file, from!, length!) - hz!)).toBeLessThan(15);
});

test('the cut starts at params.start: the first frame is the one shown then', async () => {
  const { file, probed } = await trimmed({ start: 1, end: 2 }, rgb);
  expect(probed.audioCodec).toBeUndefined();
  expect(Math.abs(probed.frames! - 25)).toBeLessThanOrEqual(1);
  expect(near(colourAt(file, 0), [0, 255, 0])).toBe(true);
  expect(near(colourAt(file, 0.95), [0, 255, 0])).toBe(true);
});

test('audio: cut and slowed into the same format, pitch kept', async () => {
  const wav = await uploadAsset(stack.gw, apiKey, tone(2, true), 'tone.wav');
  const agent = await mediaAgent(
    stack.gw,
    apiKey,
    { ...trimNode({ start: 0.5, end: 1.5, speed: 0.5 }), output: 'audio' },
    1,
    'audio_input',
  );
  const run = await runOnAssets(stack.gw, apiKey, agent, [wav]);
  expect(run.results).toEqual([expect.objectContaining({ type: 'audio' })]);
  const [id] = resultAssets(run);
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('wav'));
  const probed = probe(file);
  expect(probed).toMatchObject({ audioCodec: 'pcm_s16le', sampleRate: 48_000 });
  expect(probed.videoCodec).toBeUndefined();
  expect(Math.abs(probed.duration - 2)).toBeLessThanOrEqual(0.01);
  // 0.5–1 s (440 Hz) then 1–1.5 s (880 Hz) of the source, each twice as long.
  expect(Math.abs(pitchOf(file, 0.1, 0.8) - 440)).toBeLessThan(15);
  expect(Math.abs(pitchOf(file, 1.1, 0.8) - 880)).toBeLessThan(15);
});

test.each([
  ['start past the end', { start: 5 }, /at input 'media' lasts 4 s: params.start \(5 s\) is past its end$/],
  ['end past the end', { start: 1, end: 6 }, /at input 'media' lasts 4 s: params.end \(6 s\) is past its end$/],
])('%s: invalid_input naming the port', async (_name, params, message) => {
  const agent = await mediaAgent(stack.gw, apiKey, trimNode(params));
  const run = await runOnAssets(stack.gw, apiKey, agent, [withSound]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toMatch(message);
});

test('a corrupt video: invalid_input naming the port', async () => {
  const bad = await uploadAsset(stack.gw, apiKey, CORRUPT_MP4, 'bad.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, trimNode({ speed: 2 }));
  const run = await runOnAssets(stack.gw, apiKey, agent, [bad]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toBe(`Node 'node': the asset ${bad} at input 'media' cannot be read as a video`);
});

test.each([
  ['speed above 4', { speed: 5 }],
  ['speed below 0.25', { speed: 0.2 }],
  ['end before start', { start: 2, end: 1 }],
])('%s is refused at publication', async (_name, params) => {
  await refusedAgent(stack.gw, apiKey, trimNode(params));
});
