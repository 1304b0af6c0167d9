import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { GARBAGE, MP4_HEADER } from '../testing/asset-fixtures';
import { mediaDir } from '../testing/media/files';
import { ffmpegFile, testVideo } from '../testing/media/generate';
import { probeFile, streamOf, videoPacketSizes } from '../testing/media/probe';
import { downloadTo, resultAssets, runFlow, uploadAsset } from '../testing/media/runs';
import { meanVolume } from '../testing/media/sound';
import { startRunStack, type RunStack } from '../testing/test-runs';

// extract_audio and remove_audio through the API with a real worker, on
// videos ffmpeg makes here; the results are downloaded and probed.

const FRAME = 1 / 25;

let stack: RunStack;
let apiKey: string;
const media = mediaDir();
let toned: string; // 3 s, 440 Hz
let toned2: string; // 2 s, 660 Hz
let silent: string; // 3 s, no audio track
let soundOnly: string; // an MP4 with a sound and no picture: uploaded as a video
let corrupt: string;

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Audio tracks'));
  const up = (bytes: Buffer, name: string) => uploadAsset(stack.gw, apiKey, bytes, name);
  [toned, toned2, silent, soundOnly, corrupt] = await Promise.all([
    up(testVideo(media.file('toned.mp4'), 3, 440), 'toned.mp4'),
    up(testVideo(media.file('toned2.mp4'), 2, 660), 'toned2.mp4'),
    up(testVideo(media.file('silent.mp4'), 3), 'silent.mp4'),
    up(
      ffmpegFile(media.file('sound-only.mp4'), ['-f', 'lavfi', '-i', 'sine=duration=2', '-c:a', 'aac']),
      'sound-only.mp4',
    ),
    up(Buffer.concat([MP4_HEADER, GARBAGE]), 'corrupt.mp4'),
  ]);
});
afterAll(async () => {
  await stack.close();
  media.cleanup();
});

const tracksFlow = (): Flow => ({
  nodes: [
    { id: 'clips', type: 'video_input' },
    { id: 'mp3', type: 'extract_audio', inputs: { video: 'clips' } },
    { id: 'wav', type: 'extract_audio', params: { format: 'wav' }, inputs: { video: 'clips' } },
    { id: 'mute', type: 'remove_audio', inputs: { video: 'clips' } },
  ],
  outputs: [
    { id: 'mp3', type: 'audio', description: '' },
    { id: 'wav', type: 'audio', description: '' },
    { id: 'mute', type: 'videos', description: '' },
  ],
});

const fetchAs = (id: string, name: string) => downloadTo(stack.gw, apiKey, id, media.file(name));

test('each video of the list gives its sound as mp3 and wav, and its picture without sound', async () => {
  const run = await runFlow(stack.gw, apiKey, tracksFlow(), [{ id: 'clips', value: { asset_ids: [toned, toned2] } }]);
  expect(run.status).toBe('completed');

  const mp3s = resultAssets(run, 'mp3');
  const wavs = resultAssets(run, 'wav');
  expect(mp3s).toHaveLength(2);
  expect(wavs).toHaveLength(2);
  for (const [i, [seconds, hz]] of [
    [3, 440],
    [2, 660],
  ].entries()) {
    const mp3 = await fetchAs(mp3s[i]!, `out-${i}.mp3`);
    const wav = await fetchAs(wavs[i]!, `out-${i}.wav`);
    expect(probeFile(mp3).streams.map((s) => [s.codec_type, s.codec_name])).toEqual([['audio', 'mp3']]);
    expect(probeFile(wav).streams.map((s) => [s.codec_type, s.codec_name])).toEqual([['audio', 'pcm_s16le']]);
    for (const file of [mp3, wav]) {
      expect(Math.abs(probeFile(file).duration - seconds!)).toBeLessThanOrEqual(FRAME);
      // The video's own tone, not another.
      expect(meanVolume(file, { bandHz: hz })).toBeGreaterThan(-30);
    }
  }

  const mutes = resultAssets(run, 'mute');
  expect(mutes).toHaveLength(2);
  const original = media.file('toned.mp4');
  const mute = await fetchAs(mutes[0]!, 'mute-0.mp4');
  const streams = probeFile(mute).streams;
  expect(streams.map((s) => s.codec_type)).toEqual(['video']);
  const before = streamOf(original, 'video')!;
  expect(streams[0]).toMatchObject({
    codec_name: before.codec_name,
    width: 320,
    height: 240,
    bit_rate: before.bit_rate,
  });
  // Copied, not re-encoded: the same packets, byte for byte in size.
  expect(videoPacketSizes(mute)).toEqual(videoPacketSizes(original));
  expect(Math.abs(probeFile(mute).duration - 3)).toBeLessThanOrEqual(FRAME);
  expect(probeFile(await fetchAs(mutes[1]!, 'mute-1.mp4')).streams.map((s) => s.codec_type)).toEqual(['video']);

  const stored = await stack.gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: mp3s[0]! } });
  expect(stored).toMatchObject({ mediaType: 'audio', contentType: 'audio/mpeg', mediaExtension: 'mp3' });
});

describe('bad input fails the run with invalid_input naming the port', () => {
  const extractFlow = (type: 'extract_audio' | 'remove_audio'): Flow => ({
    nodes: [
      { id: 'clips', type: 'video_input' },
      { id: 'node', type, inputs: { video: 'clips' } },
    ],
    outputs: [{ id: 'node', type: type === 'extract_audio' ? 'audio' : 'videos', description: '' }],
  });
  const cases: [string, 'extract_audio' | 'remove_audio', () => string, RegExp][] = [
    ['a video without sound to extract_audio', 'extract_audio', () => silent, /has no sound/],
    ['an audio file to extract_audio', 'extract_audio', () => soundOnly, /has no video track/],
    ['an audio file to remove_audio', 'remove_audio', () => soundOnly, /has no video track/],
    ['a corrupt video to remove_audio', 'remove_audio', () => corrupt, /cannot be read as a video/],
    ['a corrupt video to extract_audio', 'extract_audio', () => corrupt, /cannot be read as a video/],
  ];
  test.each(cases)('%s', async (_name, type, asset, why) => {
    const id = asset();
    const run = await runFlow(stack.gw, apiKey, extractFlow(type), [{ id: 'clips', value: { asset_ids: [id] } }]);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toContain(`Node 'node': the asset ${id} at input 'video'`);
    expect(run.error).toMatch(why);
  });
});

test('an unknown format is refused when the flow is published', async () => {
  const flow = tracksFlow();
  flow.nodes[1]!.params = { format: 'ogg' };
  const res = await request(stack.gw.app)
    .post('/agents')
    .set('X-Api-Key', apiKey)
    .send({ name: 'Bad', description: 'x', flow });
  expect(res.status).toBe(422);
  expect(JSON.stringify(res.body)).toContain('format');
});
