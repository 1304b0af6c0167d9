import type { Flow } from '@weft/contracts';
import fs from 'node:fs';
import request from 'supertest';
import { mediaDir } from '../testing/media/files';
import { probeFile } from '../testing/media/probe';
import { downloadTo, resultAssets, runFlow } from '../testing/media/runs';
import { startRunStack, type RunStack } from '../testing/test-runs';

// text_to_speech's local route (espeak-ng) through the API with a real worker.

let stack: RunStack;
let apiKey: string;
const media = mediaDir();

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Speech'));
});
afterAll(async () => {
  await stack.close();
  media.cleanup();
});

const flow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'text', type: 'text_input' },
    { id: 'speak', type: 'text_to_speech', params, inputs: { text: 'text' } },
  ],
  outputs: [{ id: 'speak', type: 'audio', description: '' }],
});

const SHORT = 'Hello there.';
const LONG = 'Hello there. This sentence is a good deal longer, so speaking it takes several seconds more.';

/** The WAV of the run's speech, and the share of its 16-bit samples that are not near silence. */
async function speech(text: string, params: Record<string, unknown> = {}) {
  const run = await runFlow(stack.gw, apiKey, flow(params), [{ id: 'text', value: text }]);
  expect(run.status).toBe('completed');
  const [asset] = resultAssets(run, 'speak');
  const file = await downloadTo(stack.gw, apiKey, asset!, media.file(`${run.id}.wav`));
  const probe = probeFile(file);
  expect(probe.streams.map((s) => [s.codec_type, s.codec_name])).toEqual([['audio', 'pcm_s16le']]);
  const bytes = fs.readFileSync(file);
  const data = bytes.subarray(bytes.indexOf('data') + 8);
  let loud = 0;
  for (let i = 0; i + 1 < data.length; i += 2) if (Math.abs(data.readInt16LE(i)) > 1000) loud++;
  return { asset: asset!, duration: probe.duration, loudShare: loud / (data.length / 2) };
}

test('speaks the text as a WAV whose length grows with the text and shrinks with the speed', async () => {
  const short = await speech(SHORT);
  const long = await speech(LONG);
  const fast = await speech(LONG, { speed: 350 });
  expect(short.loudShare).toBeGreaterThan(0.2);
  expect(long.loudShare).toBeGreaterThan(0.2);
  expect(short.duration).toBeGreaterThan(0.5);
  expect(long.duration).toBeGreaterThan(short.duration * 3);
  expect(fast.duration).toBeLessThan(long.duration * 0.7);

  const stored = await stack.gw.deps.db.prisma.asset.findUniqueOrThrow({ where: { id: long.asset } });
  expect(stored).toMatchObject({ mediaType: 'audio', contentType: 'audio/wav', mediaExtension: 'wav' });
  expect((stored.assetMetadata as { duration: number }).duration).toBeCloseTo(long.duration, 1);
});

test('another language by its code', async () => {
  const french = await speech('Bonjour à tous, merci.', { voice: 'fr' });
  expect(french.loudShare).toBeGreaterThan(0.2);
});

test('is served by the local route', async () => {
  const res = await request(stack.gw.app).get('/node-types/text_to_speech').set('X-Api-Key', apiKey);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    serving: 'local_or_provider',
    lane: 'heavy',
    route: { provider: 'local', model: 'espeak-ng' },
  });
});

describe('bad input fails with invalid_input', () => {
  test.each([['xx-nowhere'], ['../etc/passwd']])('an unknown voice %j', async (voice) => {
    const run = await runFlow(stack.gw, apiKey, flow({ voice }), [{ id: 'text', value: SHORT }]);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toBe(
      `Node 'speak': params.voice '${voice}' is not a voice of espeak-ng (a language like en, fr, de)`,
    );
  });

  test('an empty text', async () => {
    const run = await runFlow(stack.gw, apiKey, flow(), [{ id: 'text', value: '   ' }]);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
    expect(run.error).toBe("Node 'speak': the text at input 'text' is empty");
  });

  test('a speed out of range is refused when the flow is published', async () => {
    const res = await request(stack.gw.app)
      .post('/agents')
      .set('X-Api-Key', apiKey)
      .send({ name: 'Bad', description: 'x', flow: flow({ speed: 1000 }) });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('speed');
  });
});
