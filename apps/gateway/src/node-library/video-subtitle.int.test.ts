import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { mediaDir } from '../testing/media/files';
import { ffmpegFile, testVideo } from '../testing/media/generate';
import { frameAt } from '../testing/media/pixels';
import { probeFile } from '../testing/media/probe';
import { downloadTo, resultAssets, runFlow, uploadAsset } from '../testing/media/runs';
import { startRunStack, type RunStack } from '../testing/test-runs';

// video_subtitle through the API with a real worker: subtitles burnt into a
// plain blue video, found by comparing frames with the original's.

const WIDTH = 320;
const HEIGHT = 240;
const FRAME = 1 / 25;

let stack: RunStack;
let apiKey: string;
const media = mediaDir();
let blue: string;
let original: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Subtitles'));
  original = media.file('blue.mp4');
  blue = await uploadAsset(stack.gw, apiKey, testVideo(original, 2, 440, 'color=c=0x2040a0'), 'blue.mp4');
});
afterAll(async () => {
  await stack.close();
  media.cleanup();
});

function flow(params: Record<string, unknown> = {}): Flow {
  return {
    nodes: [
      { id: 'clip', type: 'video_input' },
      { id: 'subs', type: 'text_input' },
      { id: 'burn', type: 'video_subtitle', params, inputs: { video: 'clip', subtitles: 'subs' } },
    ],
    outputs: [{ id: 'burn', type: 'videos', description: '' }],
  };
}

async function burn(text: string, params: Record<string, unknown> = {}, video = blue) {
  return runFlow(stack.gw, apiKey, flow(params), [
    { id: 'clip', value: { asset_ids: [video] } },
    { id: 'subs', value: text },
  ]);
}

async function burnt(text: string, params: Record<string, unknown> = {}): Promise<string> {
  const run = await burn(text, params);
  expect(run.status).toBe('completed');
  const [asset] = resultAssets(run, 'burn');
  return downloadTo(stack.gw, apiKey, asset!, media.file(`${run.id}.mp4`));
}

type Band = 'top' | 'bottom';

/** Pixels of the band (top or bottom third) that differ from the original frame, and those near `rgb`. */
function band(file: string, at: number, where: Band, rgb: [number, number, number] = [255, 255, 255]) {
  const frame = frameAt(file, at);
  const before = frameAt(original, at);
  const [y0, y1] = where === 'top' ? [0, HEIGHT / 3] : [(2 * HEIGHT) / 3, HEIGHT];
  let changed = 0;
  let coloured = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      const d =
        Math.abs(frame[i]! - before[i]!) +
        Math.abs(frame[i + 1]! - before[i + 1]!) +
        Math.abs(frame[i + 2]! - before[i + 2]!);
      if (d > 90) changed++;
      if (rgb.every((c, k) => Math.abs(frame[i + k]! - c) < 60)) coloured++;
    }
  }
  return { changed, coloured };
}

const TEXT_PIXELS = 150; // a word at 32 px covers far more
const NOISE_PIXELS = 5;

test('plain text is shown for the whole video, at the bottom by default and at the top when asked', async () => {
  const bottom = await burnt('HELLO WORLD', { font_size: 32 });
  const top = await burnt('HELLO WORLD', { font_size: 32, position: 'top' });
  for (const at of [0.1, 1.9]) {
    expect(band(bottom, at, 'bottom').coloured).toBeGreaterThan(TEXT_PIXELS);
    expect(band(bottom, at, 'top').changed).toBeLessThan(NOISE_PIXELS);
    expect(band(top, at, 'top').coloured).toBeGreaterThan(TEXT_PIXELS);
    expect(band(top, at, 'bottom').changed).toBeLessThan(NOISE_PIXELS);
  }
  const probe = probeFile(bottom);
  expect(probe.streams.map((s) => [s.codec_type, s.codec_name])).toEqual([
    ['video', 'h264'],
    ['audio', 'aac'],
  ]);
  expect(probe.streams[0]).toMatchObject({ width: WIDTH, height: HEIGHT });
  expect(Math.abs(probe.duration - 2)).toBeLessThanOrEqual(FRAME * 2);
});

test('SRT cues show in their time only, in params.color and larger with font_size', async () => {
  const srt = '1\n00:00:00,000 --> 00:00:01,000\nFIRST\n\n2\n00:00:01,500 --> 00:00:02,000\n{SECOND}\n';
  const red = await burnt(srt, { color: '#ff0000', font_size: 40 });
  expect(band(red, 0.5, 'bottom', [255, 0, 0]).coloured).toBeGreaterThan(TEXT_PIXELS);
  expect(band(red, 0.5, 'bottom').coloured).toBeLessThan(NOISE_PIXELS); // red, not white
  expect(band(red, 1.25, 'bottom').changed).toBeLessThan(NOISE_PIXELS); // between the cues
  expect(band(red, 1.75, 'bottom', [255, 0, 0]).coloured).toBeGreaterThan(TEXT_PIXELS);

  const small = await burnt(srt, { color: '#ff0000', font_size: 16 });
  expect(band(small, 0.5, 'bottom').changed * 2).toBeLessThan(band(red, 0.5, 'bottom').changed);
});

test('WebVTT cues, with identifiers, notes and markup', async () => {
  const vtt =
    'WEBVTT - demo\n\nNOTE made in a test\n\nintro\n00:00.000 --> 00:00.800\n<v Ann>Hello <b>there</b> &amp; hi</v>\n\n' +
    'outro\n00:01.200 --> 00:02.000 line:0\nBye\n';
  const file = await burnt(vtt, { font_size: 32 });
  expect(band(file, 0.4, 'bottom').coloured).toBeGreaterThan(TEXT_PIXELS);
  expect(band(file, 1.0, 'bottom').changed).toBeLessThan(NOISE_PIXELS);
  expect(band(file, 1.6, 'bottom').coloured).toBeGreaterThan(TEXT_PIXELS / 3);
});

describe('the size follows the video unless font_size says otherwise', () => {
  let vertical: string;
  beforeAll(async () => {
    const file = media.file('vertical.mp4');
    const bytes = ffmpegFile(file, [
      '-f',
      'lavfi',
      '-i',
      'color=c=0x2040a0:s=1080x1920:r=5:d=1',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
    ]);
    vertical = await uploadAsset(stack.gw, apiKey, bytes, 'vertical.mp4');
  });

  /** The rows of white text in the vertical clip's frame: accents to descenders, outline left out. */
  async function textRows(params: Record<string, unknown>) {
    const run = await burn('ÉHgy', params, vertical);
    const [asset] = resultAssets(run, 'burn');
    const frame = frameAt(await downloadTo(stack.gw, apiKey, asset!, media.file(`${run.id}.mp4`)), 0.5);
    let [top, bottom] = [Infinity, -Infinity];
    for (let i = 0; i < frame.length; i += 3) {
      if (frame[i]! < 200 || frame[i + 1]! < 200 || frame[i + 2]! < 200) continue;
      const y = Math.floor(i / 3 / 1080);
      [top, bottom] = [Math.min(top, y), Math.max(bottom, y)];
    }
    return { top, bottom, height: bottom - top + 1 };
  }

  test("by default, a line about 5 % of a 1080×1920 clip's height, 10 % of it above the bottom", async () => {
    const text = await textRows({});
    expect(text.height / 1920).toBeGreaterThan(0.04);
    expect(text.height / 1920).toBeLessThan(0.06);
    expect(1920 - text.bottom).toBeGreaterThanOrEqual(0.1 * 1920);
  });

  test('font_size is the height of a line in pixels, on any video', async () => {
    const text = await textRows({ font_size: 36 });
    expect(Math.abs(text.height - 36)).toBeLessThanOrEqual(3);
  });
});

describe('bad input fails with invalid_input naming the port', () => {
  const cases: [string, string, RegExp][] = [
    ['an SRT timing that does not parse', '1\n00:00:00,500 --> 00:0x:02,000\nHello\n', /SRT/],
    ['an SRT cue ending before it starts', '1\n00:00:05,000 --> 00:00:02,000\nHello\n', /cue 1 ends before it starts/],
    ['a WebVTT timestamp that does not parse', 'WEBVTT\n\n00:00.500 --> 00:0x.000\nHello\n', /WebVTT, line 3/],
    ['a WebVTT file without cues', 'WEBVTT\n', /no cue/],
  ];
  test.each(cases)('%s', async (_name, text, why) => {
    const run = await burn(text);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toContain("Node 'burn': the subtitles at input 'subtitles' do not parse");
    expect(run.error).toMatch(why);
  });

  test('a sound-only file at `video`', async () => {
    const file = media.file('sound-only.mp4');
    const soundOnly = await uploadAsset(
      stack.gw,
      apiKey,
      ffmpegFile(file, ['-f', 'lavfi', '-i', 'sine=duration=1', '-c:a', 'aac']),
      'sound-only.mp4',
    );
    const run = await burn('Hello', {}, soundOnly);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toBe(`Node 'burn': the asset ${soundOnly} at input 'video' has no video track`);
  });

  test('params out of range are refused when the flow is published', async () => {
    for (const params of [{ position: 'middle' }, { color: 'blue' }, { font_size: 2 }]) {
      const res = await request(stack.gw.app)
        .post('/agents')
        .set('X-Api-Key', apiKey)
        .send({ name: 'Bad', description: 'x', flow: flow(params) });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain(Object.keys(params)[0]);
    }
  });
});
