import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { mediaDir } from '../testing/media/files';
import { testTone, testVideo } from '../testing/media/generate';
import { probeFile, streamOf, videoPacketSizes } from '../testing/media/probe';
import { downloadTo, resultAssets, runFlow, uploadAsset } from '../testing/media/runs';
import { meanVolume } from '../testing/media/sound';
import { startRunStack, type RunStack } from '../testing/test-runs';

// merge_audio_video and video_add_sound through the API with a real worker:
// a 440 Hz video, 1000 Hz sounds, and which tones the result holds.

const FRAME = 1 / 25;
const HEARD = -35; // dB through the band-pass: the tone is there
const ABSENT = -60; // dB through the band-pass: the tone is not

let stack: RunStack;
let apiKey: string;
const media = mediaDir();
let toned: string; // 3 s video, 440 Hz
let silent: string; // 3 s video, no audio track
let short: string; // 1 s of 1000 Hz
let long: string; // 5 s of 1000 Hz
let otherVideo: string; // 4 s video of 1000 Hz: its sound is used

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Sound under video'));
  const up = (bytes: Buffer, name: string) => uploadAsset(stack.gw, apiKey, bytes, name);
  [toned, silent, short, long, otherVideo] = await Promise.all([
    up(testVideo(media.file('toned.mp4'), 3, 440), 'toned.mp4'),
    up(testVideo(media.file('silent.mp4'), 3), 'silent.mp4'),
    up(testTone(media.file('short.wav'), 1, 1000), 'short.wav'),
    up(testTone(media.file('long.wav'), 5, 1000), 'long.wav'),
    up(testVideo(media.file('other.mp4'), 4, 1000, 'color=c=red'), 'other.mp4'),
  ]);
});
afterAll(async () => {
  await stack.close();
  media.cleanup();
});

type Type = 'merge_audio_video' | 'video_add_sound';

function flow(
  nodes: { id: string; type: Type; params?: Record<string, unknown>; audio?: 'sound' | 'soundVideo' }[],
): Flow {
  return {
    nodes: [
      { id: 'clip', type: 'video_input' },
      { id: 'sound', type: 'audio_input', required: false },
      { id: 'soundVideo', type: 'video_input', required: false },
      ...nodes.map((n) => ({
        id: n.id,
        type: n.type,
        ...(n.params ? { params: n.params } : {}),
        inputs: { video: 'clip', audio: n.audio ?? 'sound' },
      })),
    ],
    outputs: nodes.map((n) => ({ id: n.id, type: 'videos' as const, description: '' })),
  };
}

const asInput = (id: string, assets: string[]) => ({ id, value: { asset_ids: assets } });

async function result(run: Awaited<ReturnType<typeof runFlow>>, node: string): Promise<string> {
  const [asset] = resultAssets(run, node);
  return downloadTo(stack.gw, apiKey, asset!, media.file(`${run.id}-${node}.out`));
}

test('replace (merge default) and mix (add_sound default): which tones the result holds', async () => {
  const run = await runFlow(
    stack.gw,
    apiKey,
    flow([
      { id: 'merged', type: 'merge_audio_video' },
      { id: 'added', type: 'video_add_sound' },
      { id: 'quiet', type: 'video_add_sound', params: { volume: 0.25 } },
      { id: 'mergeMix', type: 'merge_audio_video', params: { mode: 'mix' } },
    ]),
    [asInput('clip', [toned]), asInput('sound', [long])],
  );
  expect(run.status).toBe('completed');
  const merged = await result(run, 'merged');
  const added = await result(run, 'added');
  const quiet = await result(run, 'quiet');
  const mergeMix = await result(run, 'mergeMix');

  // replace: the added tone alone.
  expect(meanVolume(merged, { bandHz: 1000 })).toBeGreaterThan(HEARD);
  expect(meanVolume(merged, { bandHz: 440 })).toBeLessThan(ABSENT);
  // mix: both, each at its own level.
  for (const mixed of [added, mergeMix]) {
    expect(meanVolume(mixed, { bandHz: 1000 })).toBeGreaterThan(HEARD);
    expect(meanVolume(mixed, { bandHz: 440 })).toBeGreaterThan(HEARD);
  }
  // volume 0.25 is 12 dB down on the added sound, the video's own unchanged.
  const drop = meanVolume(added, { bandHz: 1000 }) - meanVolume(quiet, { bandHz: 1000 });
  expect(drop).toBeGreaterThan(10);
  expect(drop).toBeLessThan(14);
  expect(Math.abs(meanVolume(added, { bandHz: 440 }) - meanVolume(quiet, { bandHz: 440 }))).toBeLessThan(1);

  // fit shortest, the 5 s sound under the 3 s video: the video's length, its stream copied.
  const original = media.file('toned.mp4');
  for (const file of [merged, added]) {
    expect(Math.abs(probeFile(file).duration - 3)).toBeLessThanOrEqual(FRAME);
    expect(streamOf(file, 'video')).toMatchObject({ codec_name: 'h264', width: 320, height: 240 });
    expect(videoPacketSizes(file)).toEqual(videoPacketSizes(original));
  }
});

test('fit: shortest ends with a shorter sound, video loops it to the video’s end', async () => {
  const run = await runFlow(
    stack.gw,
    apiKey,
    flow([
      { id: 'shortest', type: 'merge_audio_video' },
      { id: 'looped', type: 'merge_audio_video', params: { fit: 'video' } },
    ]),
    [asInput('clip', [toned]), asInput('sound', [short])],
  );
  expect(run.status).toBe('completed');
  const shortest = await result(run, 'shortest');
  const looped = await result(run, 'looped');

  expect(Math.abs(probeFile(shortest).duration - 1)).toBeLessThanOrEqual(FRAME);
  expect(Math.abs(Number(streamOf(shortest, 'video')!.duration) - 1)).toBeLessThanOrEqual(FRAME);

  expect(Math.abs(probeFile(looped).duration - 3)).toBeLessThanOrEqual(FRAME);
  // The 1 s sound plays again in the last second: looped, not padded with silence.
  expect(meanVolume(looped, { bandHz: 1000, from: 2.2, to: 2.9 })).toBeGreaterThan(HEARD);
  expect(videoPacketSizes(looped)).toEqual(videoPacketSizes(media.file('toned.mp4')));
});

test('the sound of a video at `audio`; a video without sound mixed gets the added sound alone', async () => {
  const run = await runFlow(
    stack.gw,
    apiKey,
    flow([{ id: 'added', type: 'video_add_sound', audio: 'soundVideo', params: { fit: 'video' } }]),
    [asInput('clip', [silent]), asInput('soundVideo', [otherVideo])],
  );
  expect(run.status).toBe('completed');
  const added = await result(run, 'added');
  expect(probeFile(added).streams.map((s) => s.codec_type)).toEqual(['video', 'audio']);
  expect(meanVolume(added, { bandHz: 1000 })).toBeGreaterThan(HEARD);
  // The picture is the video's, not the sound's red one, cut to the video's 3 s.
  expect(videoPacketSizes(added)).toEqual(videoPacketSizes(media.file('silent.mp4')));
  expect(Math.abs(probeFile(added).duration - 3)).toBeLessThanOrEqual(FRAME);
});

test('one sound under each video of a list', async () => {
  const run = await runFlow(stack.gw, apiKey, flow([{ id: 'merged', type: 'merge_audio_video' }]), [
    asInput('clip', [toned, silent]),
    asInput('sound', [long]),
  ]);
  expect(run.status).toBe('completed');
  const outputs = resultAssets(run, 'merged');
  expect(outputs).toHaveLength(2);
  for (const [i, id] of outputs.entries()) {
    const file = await downloadTo(stack.gw, apiKey, id, media.file(`list-${i}.mp4`));
    expect(meanVolume(file, { bandHz: 1000 })).toBeGreaterThan(HEARD);
  }
});

describe('bad input fails with invalid_input naming the port', () => {
  test('a video without sound at `audio`', async () => {
    const run = await runFlow(
      stack.gw,
      apiKey,
      flow([{ id: 'merged', type: 'merge_audio_video', audio: 'soundVideo' }]),
      [asInput('clip', [toned]), asInput('soundVideo', [silent])],
    );
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toBe(`Node 'merged': the asset ${silent} at input 'audio' has no sound`);
  });

  test('a sound-only file at `video`', async () => {
    const soundOnly = await uploadAsset(
      stack.gw,
      apiKey,
      testTone(media.file('sound-only.mp4'), 1, 500),
      'sound-only.mp4',
    );
    const run = await runFlow(stack.gw, apiKey, flow([{ id: 'added', type: 'video_add_sound' }]), [
      asInput('clip', [soundOnly]),
      asInput('sound', [short]),
    ]);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toBe(`Node 'added': the asset ${soundOnly} at input 'video' has no video track`);
  });

  test('params out of range are refused when the flow is published', async () => {
    for (const params of [{ volume: 3 }, { mode: 'duck' }, { fit: 'audio' }]) {
      const res = await request(stack.gw.app)
        .post('/agents')
        .set('X-Api-Key', apiKey)
        .send({ name: 'Bad', description: 'x', flow: flow([{ id: 'merged', type: 'merge_audio_video', params }]) });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain(Object.keys(params)[0]);
    }
  });
});
