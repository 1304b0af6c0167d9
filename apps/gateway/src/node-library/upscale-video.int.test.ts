import request from 'supertest';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { clip, clipFile, CORRUPT_MP4, removeClipFiles, soundOnlyMp4 } from '../testing/media/generate';
import { mediaAgent, refusedAgent, runOnAssets } from '../testing/media/one-node';
import { colourAt } from '../testing/media/pixels';
import { probe } from '../testing/media/probe';
import { downloadTo, resultAssets, uploadAsset } from '../testing/media/runs';

// upscale_video's local route through the API: Lanczos resizing by params.factor.

let stack: RunStack;
let apiKey: string;
/** 160×120, 2 s at 25 fps, red, a tone. */
let small: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Upscale', 100));
  small = await uploadAsset(
    stack.gw,
    apiKey,
    clip({ color: 'red', width: 160, height: 120, seconds: 2, sound: true }),
    'small.mp4',
  );
}, 60_000);
afterAll(async () => {
  await stack.close();
  removeClipFiles();
});

const upscaleNode = (params?: Record<string, unknown>) => ({
  type: 'upscale_video',
  port: 'video',
  ...(params ? { params } : {}),
});

test('GET /node-types: served by the worker’s own route (lanczos) on the heavy lane', async () => {
  const res = await request(stack.gw.app).get('/node-types/upscale_video').set('X-Api-Key', apiKey).expect(200);
  expect(res.body).toMatchObject({
    serving: 'local_or_provider',
    lane: 'heavy',
    route: { provider: 'local', model: 'lanczos' },
  });
});

test.each([
  ['the default factor, 2', undefined, 320, 240],
  ['factor 4', { factor: 4 }, 640, 480],
])('%s: that many times wider and higher, length, rate and sound kept', async (_name, params, width, height) => {
  const agent = await mediaAgent(stack.gw, apiKey, upscaleNode(params));
  const [id] = resultAssets(await runOnAssets(stack.gw, apiKey, agent, [small]));
  const file = await downloadTo(stack.gw, apiKey, id!, clipFile('mp4'));
  const probed = probe(file);
  expect(probed).toMatchObject({ width, height, frameRate: 25, videoCodec: 'h264', audioCodec: 'aac' });
  expect(Math.abs(probed.frames! - 50)).toBeLessThanOrEqual(1);
  expect(colourAt(file, 1).every((v, i) => Math.abs(v - [255, 0, 0][i]!) <= 24)).toBe(true);
});

test.each([
  ['a corrupt video', CORRUPT_MP4, /at input 'video' cannot be read as a video$/],
  ['sound without picture', soundOnlyMp4(), /at input 'video' has no video track$/],
])('%s: invalid_input naming the port', async (_name, bytes, message) => {
  const bad = await uploadAsset(stack.gw, apiKey, bytes, 'bad.mp4');
  const agent = await mediaAgent(stack.gw, apiKey, upscaleNode());
  const run = await runOnAssets(stack.gw, apiKey, agent, [bad]);
  expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(run.error).toMatch(message);
});

test('a factor other than 2 or 4 is refused at publication', async () => {
  await refusedAgent(stack.gw, apiKey, upscaleNode({ factor: 3 }));
});
