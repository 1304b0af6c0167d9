import type { Flow, NodeType } from '@weft/contracts';
import { parseSubtitles } from '@weft/media';
import { createNodeRoutes, elevenLabsAdapter, type OrganizationCredentials } from '@weft/providers';
import { RUN_QUEUES } from '@weft/queue';
import { startElevenLabsDouble, waitFor, type ElevenLabsDouble, type ElevenLabsOutcome } from '@weft/testing';
import { Queue } from 'bullmq';
import pino from 'pino';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { clip, clipFile, removeClipFiles, tone } from '../testing/media/generate';
import { probeFile } from '../testing/media/probe';
import { assetRecord, downloadTo, failureOf, resultOf, runAgent, uploadAsset, type Org } from '../testing/media/runs';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';

// The ElevenLabs adapter through the API: a loopback double of the ElevenLabs
// REST API driven by the real SDK (@elevenlabs/elevenlabs-js).

jest.setTimeout(60_000);

const KEY = 'xi-test-0123456789-very-secret';
let double: ElevenLabsDouble;
let stack: RunStack;
let routed: RunStack;
let org: Org;
const workerLog: string[] = [];

/** The adapter of the double, polling dubbing jobs every few milliseconds. */
const fastAdapter = () =>
  elevenLabsAdapter({ apiKey: KEY, baseURL: double.baseURL, pollIntervalMs: 20, maxRetries: 2 });

/** The deployment's settings alone, as the gateway and the worker read them. */
const routedEnv = () => ({
  ELEVENLABS_API_KEY: KEY,
  ELEVENLABS_BASE_URL: double.baseURL,
  NODE_ROUTES: 'text_to_speech=elevenlabs:eleven_flash_v2_5',
});

beforeAll(async () => {
  double = await startElevenLabsDouble();
  [stack, routed] = await Promise.all([
    startRunStack(
      {},
      {
        nodeRoutes: createNodeRoutes({}, { adapters: [fastAdapter()] }),
        logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
      },
    ),
    startRunStack(routedEnv(), { nodeRoutes: createNodeRoutes(routedEnv()) }),
  ]);
  org = await stack.gw.createOrg('ElevenLabs', 10_000);
});
afterEach(() => {
  double.respond('ok');
  double.dubbing = { polls: 2, ends: 'dubbed' };
});
afterAll(async () => {
  await Promise.all([stack?.close(), routed?.close()]);
  await double?.close();
  removeClipFiles();
});

const speechFlow = (params: Record<string, unknown> = { provider: 'elevenlabs' }): Flow => ({
  nodes: [
    { id: 'line', type: 'text_input' },
    { id: 'say', type: 'text_to_speech', params, inputs: { text: 'line' } },
  ],
  outputs: [{ id: 'say', type: 'audio', description: 'The speech' }],
});

/** A flow of `type` reading one uploaded file from an input node of `input`. */
const fileFlow = (
  type: NodeType,
  input: 'audio_input' | 'video_input',
  port: string,
  output: 'audio' | 'videos' | 'data' | 'text',
  params: Record<string, unknown> = {},
): Flow => ({
  nodes: [
    { id: 'file', type: input },
    { id: 'node', type, params, inputs: { [port]: 'file' } },
  ],
  outputs: [{ id: 'node', type: output, description: 'The result' }],
});

/**
 * Runs `flow` to its end. Its agent reserves enough: a run is charged what the
 * provider used, at most what it reserved, and these types estimate nothing.
 */
async function runPriced(on: RunStack, apiKey: string, flow: Flow, inputs: object[]) {
  const agent = await postAgent(on.gw.app, apiKey, { flow, estimated_cost: 1000 });
  return runAgent(on.gw, apiKey, agent.id, inputs);
}

const say = (line: string, flow = speechFlow(), on = stack, apiKey = org.apiKey) =>
  runPriced(on, apiKey, flow, [{ id: 'line', value: line }]);

const speechRequests = (line: string) => double.to('POST', '/v1/text-to-speech/').filter((r) => r.json?.text === line);

async function uploaded(bytes: Buffer, name: string): Promise<string> {
  return uploadAsset(stack.gw, org.apiKey, bytes, name);
}

/** Runs `flow` with the uploaded asset `id` at its input node `file`. */
const runOn = (flow: Flow, id: string) =>
  runPriced(stack, org.apiKey, flow, [{ id: 'file', value: { asset_ids: [id] } }]);

/** The single asset of the run's result, its record and its length in seconds. */
async function resultAsset(run: Awaited<ReturnType<typeof runOn>>, id = 'node') {
  expect(run.status).toBe('completed');
  const [assetId] = resultOf(run, id) as string[];
  const record = await assetRecord(stack.gw, org.apiKey, assetId!);
  const file = await downloadTo(stack.gw, org.apiKey, assetId!, clipFile(String(record.media_extension)));
  return { assetId: assetId!, record, probed: probeFile(file) };
}

describe('text_to_speech', () => {
  test('params.provider elevenlabs: MP3 speech of the default voice and model, the key sent as xi-api-key', async () => {
    const run = await say('Hello from Weft');
    const { record, probed } = await resultAsset(run, 'say');
    expect(record).toMatchObject({ media_type: 'audio', media_extension: 'mp3' });
    expect(probed.duration).toBeGreaterThan(0.5);
    const sent = speechRequests('Hello from Weft');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      path: '/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb',
      apiKey: KEY,
      query: { output_format: 'mp3_44100_128' },
      json: { text: 'Hello from Weft', model_id: 'eleven_multilingual_v2' },
    });
  });

  test('params.voice is the voice id, params.speed the relative pace, params.options reach the body', async () => {
    const run = await say(
      'Faster please',
      speechFlow({ provider: 'elevenlabs', voice: 'voice_abc', speed: 210, options: { seed: 7 } }),
    );
    expect(run.status).toBe('completed');
    const [sent] = speechRequests('Faster please');
    expect(sent?.path).toBe('/v1/text-to-speech/voice_abc');
    expect(sent?.json).toMatchObject({ seed: 7, voice_settings: { speed: 1.2 } });
  });

  test('a speed ElevenLabs cannot speak is invalid_input, and nothing is sent', async () => {
    const run = await say('Too slow', speechFlow({ provider: 'elevenlabs', speed: 90 }));
    expect(failureOf(run)).toEqual({
      reason: 'invalid_input',
      error: expect.stringMatching(/params\.speed 90 is outside .* \(123 to 210 words per minute\)/),
    });
    expect(speechRequests('Too slow')).toHaveLength(0);
  });

  test('without params.provider nor a route it stays local (espeak-ng WAV): ElevenLabs is not called', async () => {
    const run = await say('Local speech', speechFlow({}));
    const { record } = await resultAsset(run, 'say');
    expect(record).toMatchObject({ media_type: 'audio', media_extension: 'wav' });
    expect(speechRequests('Local speech')).toHaveLength(0);
  });

  test('NODE_ROUTES=text_to_speech=elevenlabs:<model> from the settings reaches the adapter', async () => {
    const other = await routed.gw.createOrg('Routed', 1000);
    const run = await say('Routed speech', speechFlow({}), routed, other.apiKey);
    expect(run.status).toBe('completed');
    const [sent] = speechRequests('Routed speech');
    expect(sent).toMatchObject({ apiKey: KEY, json: { model_id: 'eleven_flash_v2_5' } });
  });

  test('cost: characters at the model’s price, charged on the run and recorded in node_charges', async () => {
    const line = 'x'.repeat(2345);
    const agent = await postAgent(stack.gw.app, org.apiKey, { flow: speechFlow(), estimated_cost: 1000 });
    const before = await balanceOf(stack.gw.deps.db, org.id);
    const run = await runAgent(stack.gw, org.apiKey, agent.id, [{ id: 'line', value: line }]);
    // eleven_multilingual_v2: 100 credits per 1000 characters → 234.5 → 235.
    expect(run.status).toBe('completed');
    expect(run.cost).toBe(235);
    expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before - 235);
    const { rows } = await stack.gw.deps.db.pool.query(
      'SELECT node_id, node_type, provider, model, usage, credits FROM node_charges WHERE run_id = $1',
      [run.id],
    );
    expect(rows).toEqual([
      {
        node_id: 'say',
        node_type: 'text_to_speech',
        provider: 'elevenlabs',
        model: 'eleven_multilingual_v2',
        usage: { characters: 2345 },
        credits: 235,
      },
    ]);
  });
});

describe('failures', () => {
  test.each([
    ['unauthorized', 'provider_auth_required', /refused the credentials \(HTTP 401\); check ELEVENLABS_API_KEY$/, 1],
    ['quota_exceeded', 'provider_error', /quota for ELEVENLABS_API_KEY is exhausted/, 1],
    ['invalid', 'invalid_input', /refused the request \(HTTP 422\): text: Field required/, 1],
    ['server_error', 'provider_error', /failed \(HTTP 500\): An internal error occurred/, 3],
  ] as const)('a %s answer fails the run with %s', async (outcome, reason, message, attempts) => {
    double.respond(outcome as ElevenLabsOutcome);
    const line = `outcome ${outcome}`;
    const run = await say(line);
    const failure = failureOf(run);
    expect(failure.reason).toBe(reason);
    expect(failure.error).toMatch(message);
    expect(failure.error).toContain("Node 'say'");
    expect(failure.error).not.toContain('xi-te');
    expect(speechRequests(line)).toHaveLength(attempts);
  });

  test('a 429 with Retry-After, then an answer: the run completes after the SDK’s retry', async () => {
    double.respond('rate_limited_then_ok');
    const run = await say('busy hour');
    expect(run.status).toBe('completed');
    expect(speechRequests('busy hour')).toHaveLength(2);
  });

  test('a music prompt the provider refuses (bad_prompt) is content_policy', async () => {
    double.respond('bad_prompt');
    const flow: Flow = {
      nodes: [
        { id: 'line', type: 'text_input' },
        { id: 'song', type: 'music_generation', inputs: { prompt: 'line' } },
      ],
      outputs: [{ id: 'song', type: 'audio', description: 'The music' }],
    };
    const run = await say('a song like a famous band', flow);
    expect(failureOf(run)).toEqual({
      reason: 'content_policy',
      error: expect.stringMatching(/^Node 'song': the provider refused the content \(bad_prompt\): The prompt names/),
    });
  });

  test('a provider that never answers: timeout within the node’s timeout_ms', async () => {
    double.respond('stall');
    const run = await say('silence', speechFlow({ provider: 'elevenlabs', timeout_ms: 1000 }));
    expect(failureOf(run)).toEqual({ reason: 'timeout', error: expect.stringMatching(/1000 ms/) });
  });

  test('a video given to clone_voice’s audio port is refused at publication', async () => {
    await expect(
      postAgent(stack.gw.app, org.apiKey, { flow: fileFlow('clone_voice', 'video_input', 'audio', 'data') }),
    ).rejects.toThrow(/422/);
  });
});

describe('recordings', () => {
  let wav: Buffer;
  let wavId: string;
  beforeAll(async () => {
    wav = tone(2);
    wavId = await uploaded(wav, 'voice.wav');
  });

  test('clone_voice: the recording uploaded as the voice’s file, data {voice_id}, one request charged', async () => {
    const run = await runOn(
      fileFlow('clone_voice', 'audio_input', 'audio', 'data', { options: { name: 'Narrator' } }),
      wavId,
    );
    expect(run.status).toBe('completed');
    const voice = resultOf(run, 'node') as { voice_id: string };
    expect(voice.voice_id).toMatch(/^voice_/);
    const sent = double.to('POST', '/v1/voices/add').at(-1)!;
    expect(sent.apiKey).toBe(KEY);
    expect(sent.fields).toMatchObject({ name: 'Narrator' });
    expect(sent.files).toHaveLength(1);
    expect(sent.files![0]).toMatchObject({ field: 'files', contentType: 'audio/wav' });
    expect(sent.files![0]!.bytes.equals(wav)).toBe(true);
    expect(run.cost).toBe(10);
  });

  test('isolate_sound: the recording sent as `audio`, the voice back as MP3, its seconds charged', async () => {
    const run = await runOn(fileFlow('isolate_sound', 'audio_input', 'audio', 'audio'), wavId);
    const { record } = await resultAsset(run);
    expect(record).toMatchObject({ media_type: 'audio', media_extension: 'mp3' });
    const sent = double.to('POST', '/v1/audio-isolation').at(-1)!;
    expect(sent.files![0]!.bytes.equals(wav)).toBe(true);
    // 2 s at 2 credits a second.
    expect(run.cost).toBe(4);
  });

  test.each([
    ['text', (text: string) => expect(text).toBe('Hello there, general Kenobi.')],
    [
      'srt',
      (text: string) => {
        expect(text).toMatch(/^1\n00:00:00,100 --> 00:00:02,400\nHello there, general Kenobi\.\n$/);
        expect(parseSubtitles(text)).toMatchObject({ format: 'srt', cues: [{ text: 'Hello there, general Kenobi.' }] });
      },
    ],
    [
      'vtt',
      (text: string) => {
        expect(text.startsWith('WEBVTT\n')).toBe(true);
        expect(text).toContain('00:00:00.100 --> 00:00:02.400\nHello there, general Kenobi.');
        expect(parseSubtitles(text)).toMatchObject({ format: 'vtt', cues: [{ text: 'Hello there, general Kenobi.' }] });
      },
    ],
  ] as const)('transcribe as %s: Scribe with word timings, the language passed on', async (format, check) => {
    const run = await runOn(fileFlow('transcribe', 'audio_input', 'media', 'text', { format, language: 'en' }), wavId);
    expect(run.status).toBe('completed');
    check(resultOf(run, 'node') as string);
    const sent = double.to('POST', '/v1/speech-to-text').at(-1)!;
    expect(sent.fields).toMatchObject({ model_id: 'scribe_v1', language_code: 'en', timestamps_granularity: 'word' });
    expect(sent.files![0]!.bytes.equals(wav)).toBe(true);
  });

  test('music_generation: params.duration is music_length_ms, the MP3 as long', async () => {
    const flow: Flow = {
      nodes: [
        { id: 'line', type: 'text_input' },
        { id: 'node', type: 'music_generation', params: { duration: 4 }, inputs: { prompt: 'line' } },
      ],
      outputs: [{ id: 'node', type: 'audio', description: 'The music' }],
    };
    const run = await say('calm piano', flow);
    const { record, probed } = await resultAsset(run);
    expect(record).toMatchObject({ media_type: 'audio', media_extension: 'mp3' });
    expect(probed.duration).toBeCloseTo(4, 0);
    const sent = double.to('POST', '/v1/music').at(-1)!;
    expect(sent.json).toMatchObject({ prompt: 'calm piano', music_length_ms: 4000, model_id: 'music_v2' });
    // 4 s at 0.8/0.06 credits a second → 53.3 → 54.
    expect(run.cost).toBe(54);
  });
});

describe('dubbing', () => {
  let wavId: string;
  let mp4: Buffer;
  let mp4Id: string;
  beforeAll(async () => {
    wavId = await uploaded(tone(2), 'speech.wav');
    mp4 = clip({ seconds: 2, sound: true });
    mp4Id = await uploaded(mp4, 'talk.mp4');
  });

  const jobsOf = (runId: string) =>
    double.to('POST', '/v1/dubbing').filter((r) => String(r.fields?.name).includes(runId));

  test('translate_audio: one job, polled until dubbed, the dubbed audio stored, seconds charged', async () => {
    double.dubbing = { polls: 3, ends: 'dubbed' };
    const run = await runOn(
      fileFlow('translate_audio', 'audio_input', 'audio', 'audio', { target_language: 'fr' }),
      wavId,
    );
    const { record } = await resultAsset(run);
    expect(record).toMatchObject({ media_type: 'audio', media_extension: 'mp3' });
    const created = jobsOf(run.id);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ apiKey: KEY, fields: { target_lang: 'fr' } });
    expect(created[0]!.files![0]).toMatchObject({ field: 'file', contentType: 'audio/wav' });
    const id = (await stack.gw.deps.db.pool.query('SELECT job_id FROM provider_jobs WHERE run_id = $1', [run.id]))
      .rows[0]?.job_id as string;
    expect(double.to('GET', `/v1/dubbing/${id}`).filter((r) => r.path === `/v1/dubbing/${id}`)).toHaveLength(4);
    expect(double.to('GET', `/v1/dubbing/${id}/audio/fr`)).toHaveLength(1);
    // The 2 s the provider reports at 0.5/0.06 credits a second → 16.7 → 17.
    expect(run.cost).toBe(17);
  });

  test('translate_video: the video uploaded, the dubbed MP4 stored as a video', async () => {
    const run = await runOn(
      fileFlow('translate_video', 'video_input', 'video', 'videos', { target_language: 'es' }),
      mp4Id,
    );
    const { record, probed } = await resultAsset(run);
    expect(record).toMatchObject({ media_type: 'video', media_extension: 'mp4' });
    expect(probed.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video']);
    const [created] = jobsOf(run.id);
    expect(created!.files![0]!.bytes.equals(mp4)).toBe(true);
    expect(created!.fields).toMatchObject({ target_lang: 'es' });
  });

  test('a dubbing that fails: provider_error with the provider’s reason', async () => {
    double.dubbing = { polls: 1, ends: 'failed' };
    const run = await runOn(
      fileFlow('translate_audio', 'audio_input', 'audio', 'audio', { target_language: 'de' }),
      wavId,
    );
    expect(failureOf(run)).toEqual({
      reason: 'provider_error',
      error: "Node 'node': the provider could not dub the file: No speech was found in the file.",
    });
  });

  test('cancelled mid-dubbing: the run is canceled and the dubbing project deleted', async () => {
    double.dubbing = { polls: 0, ends: 'never' };
    const agent = await postAgent(stack.gw.app, org.apiKey, {
      flow: fileFlow('translate_audio', 'audio_input', 'audio', 'audio', { target_language: 'it' }),
    });
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', org.apiKey)
      .send({ agent_id: agent.id, inputs: [{ id: 'file', value: { asset_ids: [wavId] } }] })
      .expect(201);
    const runId = res.body.id as string;
    const id = await waitFor('the dubbing to be polled', async () => {
      const [created] = jobsOf(runId);
      if (!created) return undefined;
      const row = await stack.gw.deps.db.pool.query('SELECT job_id FROM provider_jobs WHERE run_id = $1', [runId]);
      const jobId = row.rows[0]?.job_id as string | undefined;
      return jobId && double.to('GET', `/v1/dubbing/${jobId}`).length > 0 ? jobId : undefined;
    });
    await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', org.apiKey).expect(204);
    await waitFor('the dubbing to be deleted', () => double.to('DELETE', `/v1/dubbing/${id}`).length === 1);
    const run = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`);
    expect(run.status).toBe('canceled');
  });

  test('the same attempt executed twice (a worker taking over): one dubbing job, polled by both', async () => {
    // No consuming worker: the test executes the node itself, twice, as a takeover would.
    const resume = await startRunStack({}, false);
    const queue = new Queue(RUN_QUEUES.light, {
      connection: resume.gw.deps.redis,
      prefix: resume.gw.config.REDIS_PREFIX,
    });
    try {
      await queue.pause();
      const engine = (
        await resume.startWorker({
          reconcileStaleMs: 600_000,
          nodeRoutes: createNodeRoutes({}, { adapters: [fastAdapter()] }),
        })
      ).engine;
      const owner = await resume.gw.createOrg('Resume', 1000);
      const audio = await uploadAsset(resume.gw, owner.apiKey, tone(2), 'again.wav');
      const agent = await postAgent(resume.gw.app, owner.apiKey, {
        flow: fileFlow('translate_audio', 'audio_input', 'audio', 'audio', { target_language: 'pt' }),
      });
      double.dubbing = { polls: 0, ends: 'never' };
      const res = await request(resume.gw.app)
        .post('/runs')
        .set('X-Api-Key', owner.apiKey)
        .send({ agent_id: agent.id, inputs: [{ id: 'file', value: { asset_ids: [audio] } }] })
        .expect(201);
      const runId = res.body.id as string;
      const job = { runId, nodeId: 'node', attempt: 0 };
      // The queue's jobs removed: the test executes the input node, then the dubbing node twice.
      await queue.drain();
      await engine.executeNode({ runId, nodeId: 'file', attempt: 0 });
      await queue.drain();
      const first = engine.executeNode(job);
      await waitFor(
        'the first execution to poll',
        () => jobsOf(runId).length === 1 && double.to('GET', '/v1/dubbing/').length > 0,
      );
      const polls = () => double.to('GET', '/v1/dubbing/').length;
      const before = polls();
      const second = engine.executeNode(job);
      await waitFor('both executions to poll', () => polls() >= before + 4);
      double.finishDubbing();
      await Promise.all([first, second]);
      const run = await pollRun(resume.gw, owner.apiKey, `/runs/${runId}`);
      expect(run.status).toBe('completed');
      expect(jobsOf(runId)).toHaveLength(1);
    } finally {
      await queue.close();
      await resume.close();
    }
  });
});

test('an organization’s credential with its own base URL: the SDK’s requests go through the outbound rules', async () => {
  // The organization's credential points at the double on loopback, which no rule allows here.
  const organizations: OrganizationCredentials = {
    forProvider: async () => ({
      secret: 'xi-org-secret-key',
      baseURL: double.baseURL,
      origin: { kind: 'organization', id: 'cred-org-1' },
    }),
    byId: async () => undefined,
    chosenRoutes: async () => new Map(),
  };
  const guarded = await startRunStack(
    {},
    { nodeRoutes: createNodeRoutes({}, { adapters: [fastAdapter()], organizations, outboundAllowList: [] }) },
  );
  try {
    const other = await guarded.gw.createOrg('Own key', 1000);
    const run = await say('Through the rules', speechFlow(), guarded, other.apiKey);
    const failure = failureOf(run);
    expect(failure.reason).toBe('invalid_input');
    expect(failure.error).toMatch(/^Node 'say': the provider's base URL: /);
    expect(speechRequests('Through the rules')).toHaveLength(0);
  } finally {
    await guarded.close();
  }
});

test('verify (what POST /credentials calls): GET /v1/user passes with the key, rejects a refused one', async () => {
  const adapter = fastAdapter();
  const client = adapter.connect(adapter.deployment!, undefined);
  await expect(adapter.verify(client, AbortSignal.timeout(10_000))).resolves.toBeUndefined();
  expect(double.to('GET', '/v1/user').at(-1)?.apiKey).toBe(KEY);
  double.respond('unauthorized');
  await expect(adapter.verify(client, AbortSignal.timeout(10_000))).rejects.toMatchObject({ statusCode: 401 });
});

test('GET /node-types shows elevenlabs as the route of the types it serves, never the key', async () => {
  const other = await routed.gw.createOrg('Describe', 1);
  const res = await request(routed.gw.app).get('/node-types/transcribe').set('X-Api-Key', other.apiKey).expect(200);
  expect(res.body.route).toEqual({ provider: 'elevenlabs', model: 'scribe_v1' });
  const tts = await request(routed.gw.app).get('/node-types/text_to_speech').set('X-Api-Key', other.apiKey).expect(200);
  expect(tts.body.route).toEqual({ provider: 'elevenlabs', model: 'eleven_flash_v2_5' });
  const list = await request(routed.gw.app).get('/node-types').set('X-Api-Key', other.apiKey).expect(200);
  expect(JSON.stringify(list.body)).not.toContain(KEY);
});

test('the key never appears in the worker’s logs', () => {
  expect(workerLog.length).toBeGreaterThan(0);
  expect(workerLog.join('\n')).not.toContain(KEY);
});
