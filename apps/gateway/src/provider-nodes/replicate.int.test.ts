import type { Flow } from '@weft/contracts';
import { createNodeRoutes } from '@weft/providers';
import { startReplicateDouble, waitFor, type ReplicateDouble } from '@weft/testing';
import pino from 'pino';
import sharp from 'sharp';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { solid, tone } from '../testing/media/generate';
import { download, failureOf, resultOf, runAgent, uploadAsset, type Org } from '../testing/media/runs';
import { pollRun } from '../testing/test-runs';
import { startRunStack, type RunStack } from '../testing/test-runs';

// Node types served by Replicate predictions: a loopback double of Replicate's
// HTTP API driven by the real `replicate` SDK, through the gateway and a worker.

jest.setTimeout(60_000);

const TOKEN = 'r8_test0123456789verysecrettoken';
let double: ReplicateDouble;
let stack: RunStack;
let org: Org;
const workerLog: string[] = [];

beforeAll(async () => {
  double = await startReplicateDouble();
  double.token = TOKEN;
  stack = await startRunStack(
    {},
    {
      nodeRoutes: createNodeRoutes({ REPLICATE_API_TOKEN: TOKEN, REPLICATE_BASE_URL: double.baseURL }),
      logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
    },
  );
  org = await stack.gw.createOrg('Replicate', 100_000);
});
afterEach(() => {
  double.respond('ok');
  double.script({});
});
afterAll(async () => {
  await stack?.close();
  await double?.close();
});

const drawFlow = (params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'draw', type: 'image_generation', params, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'draw', type: 'images', description: 'The pictures' }],
});

/** Runs `flow` with `inputs` (an agent reserving `reserve` credits); the run and the creations the double saw for it. */
async function run(flow: Flow, inputs: object[], reserve = 1000) {
  const before = double.creates().length;
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow, estimated_cost: reserve });
  const ended = await runAgent(stack.gw, org.apiKey, agent.id, inputs);
  return { run: ended, creates: double.creates().slice(before) };
}

const draw = (prompt: string, params: Record<string, unknown> = {}) =>
  run(drawFlow(params), [{ id: 'topic', value: prompt }]);

/** The polls the double answered for prediction `id`. */
const pollsOf = (id: string) => double.requests.filter((r) => r.method === 'GET' && r.path === `/v1/predictions/${id}`);

test('image_generation: flux-schnell by model, polled to its end, the image stored as an asset of the run', async () => {
  const { run: ended, creates } = await draw('a lighthouse at dawn');
  expect(ended.status).toBe('completed');
  expect(creates).toHaveLength(1);
  expect(creates[0]).toMatchObject({
    path: '/v1/models/black-forest-labs/flux-schnell/predictions',
    authorization: `Bearer ${TOKEN}`,
    body: { input: { prompt: 'a lighthouse at dawn', num_outputs: 1 } },
  });
  expect(creates[0]!.prefer).toBeUndefined();
  const [id] = [...double.predictions.values()]
    .filter((p) => p.input && (p.input as { prompt?: string }).prompt === 'a lighthouse at dawn')
    .map((p) => p.id);
  // starting → processing, two polls still processing, the last one succeeded.
  expect(pollsOf(id!)).toHaveLength(4);
  const assets = resultOf(ended, 'draw') as string[];
  expect(assets).toHaveLength(1);
  const { bytes } = await download(stack.gw, org.apiKey, assets[0]!);
  expect((await sharp(bytes).metadata()).format).toBe('png');
});

test('N polls then done: a prediction processing for 4 polls completes the run', async () => {
  double.script({ polls: 4 });
  const { run: ended } = await draw('patience');
  expect(ended.status).toBe('completed');
  const prediction = [...double.predictions.values()].at(-1)!;
  expect(prediction.status).toBe('succeeded');
  expect(pollsOf(prediction.id)).toHaveLength(6);
});

test('the cost is the images priced per image, charged on the run with a node_charges row', async () => {
  const before = await balanceOf(stack.gw.deps.db, org.id);
  const { run: ended } = await draw('two cats', { count: 2, aspect_ratio: '16:9' });
  expect(ended.status).toBe('completed');
  expect(double.creates().at(-1)!.body.input).toMatchObject({ num_outputs: 2, aspect_ratio: '16:9' });
  expect(resultOf(ended, 'draw')).toHaveLength(2);
  // flux-schnell: 3 credits per image.
  expect(ended.cost).toBe(6);
  expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before - 6);
  const { rows } = await stack.gw.deps.db.pool.query(
    'SELECT node_id, node_type, provider, model, usage, credits FROM node_charges WHERE run_id = $1',
    [ended.id],
  );
  expect(rows).toEqual([
    {
      node_id: 'draw',
      node_type: 'image_generation',
      provider: 'replicate',
      model: 'black-forest-labs/flux-schnell',
      usage: { seconds: 2.5, images: 2 },
      credits: 6,
    },
  ]);
});

test('llm: the tokens the model streamed, joined; Prefer: wait; priced by the tokens reported', async () => {
  double.script({ metrics: { predict_time: 0.4, input_token_count: 100_000, output_token_count: 200_000 } });
  const flow: Flow = {
    nodes: [
      { id: 'q', type: 'text_input' },
      { id: 'rules', type: 'text_input' },
      {
        id: 'write',
        type: 'llm',
        params: { temperature: 0.2, max_tokens: 64 },
        inputs: { prompt: 'q', system: 'rules' },
      },
    ],
    outputs: [{ id: 'write', type: 'text', description: 'The answer' }],
  };
  const { run: ended, creates } = await run(flow, [
    { id: 'q', value: 'name a colour' },
    { id: 'rules', value: 'Be brief.' },
  ]);
  expect(ended.status).toBe('completed');
  expect(resultOf(ended, 'write')).toBe('echo: name a colour');
  expect(creates[0]).toMatchObject({
    path: '/v1/models/meta/meta-llama-3-8b-instruct/predictions',
    prefer: 'wait=10',
    body: { input: { prompt: 'name a colour', system_prompt: 'Be brief.', temperature: 0.2, max_tokens: 64 } },
  });
  // 100 000 × 50 / 1M + 200 000 × 250 / 1M = 55 credits.
  expect(ended.cost).toBe(55);
});

test('upscale on Replicate: the image uploaded through the files API, the version run, the result stored', async () => {
  const png = await solid(40, 30, '#00ff00');
  const id = await uploadAsset(stack.gw, org.apiKey, png, 'green.png');
  const flow: Flow = {
    nodes: [
      { id: 'pic', type: 'image_input' },
      { id: 'big', type: 'upscale', params: { provider: 'replicate', factor: 4 }, inputs: { image: 'pic' } },
    ],
    outputs: [{ id: 'big', type: 'images', description: 'Larger' }],
  };
  const { run: ended, creates } = await run(flow, [{ id: 'pic', value: { asset_ids: [id] } }]);
  expect(ended.status).toBe('completed');
  expect(creates[0]).toMatchObject({
    path: '/v1/predictions',
    body: { version: '42fed1c4974146d4d2414e2be2c5277c7fcf05fcc3a73abf41610695738c1d7b', input: { scale: 4 } },
  });
  const upload = double.uploads.at(-1)!;
  expect(upload.bytes.equals(png)).toBe(true);
  expect(upload.contentType).toBe('image/png');
  expect(creates[0]!.body.input!.image).toBe(`${double.baseURL}/files/${upload.id}`);
  const [result] = resultOf(ended, 'big') as string[];
  expect((await sharp((await download(stack.gw, org.apiKey, result!)).bytes).metadata()).format).toBe('png');
});

test('transcribe on whisper: the recording uploaded, the format asked for, the transcription as text', async () => {
  const wav = tone(1);
  const id = await uploadAsset(stack.gw, org.apiKey, wav, 'voice.wav');
  // openai/whisper's output (its `transcription` in the format asked for).
  double.script({
    output: () => ({ transcription: 'hello from the recording', segments: [], detected_language: 'english' }),
  });
  const flow: Flow = {
    nodes: [
      { id: 'rec', type: 'audio_input' },
      { id: 'words', type: 'transcribe', params: { format: 'srt', language: 'en' }, inputs: { media: 'rec' } },
    ],
    outputs: [{ id: 'words', type: 'text', description: 'What was said' }],
  };
  const { run: ended, creates } = await run(flow, [{ id: 'rec', value: { asset_ids: [id] } }]);
  expect(ended.status).toBe('completed');
  expect(resultOf(ended, 'words')).toBe('hello from the recording');
  expect(creates[0]!.body).toMatchObject({
    version: '8099696689d249cf8b122d833c36ac3f75505c666a395ca40ef26f68e7d3d16e',
    input: { transcription: 'srt', language: 'en' },
  });
  expect(double.uploads.at(-1)!.bytes.equals(wav)).toBe(true);
});

test('music_generation: the mp3 the model answers, stored as audio', async () => {
  const mp3 = await import('../testing/media/generate').then(({ ffmpegFile, clipFile }) =>
    ffmpegFile(clipFile('mp3'), ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1']),
  );
  const url = double.serve('song.mp3', mp3, 'audio/mpeg');
  double.script({ output: () => url });
  const flow: Flow = {
    nodes: [
      { id: 'idea', type: 'text_input' },
      { id: 'song', type: 'music_generation', params: { duration: 8 }, inputs: { prompt: 'idea' } },
    ],
    outputs: [{ id: 'song', type: 'audio', description: 'The music' }],
  };
  const { run: ended, creates } = await run(flow, [{ id: 'idea', value: 'calm piano' }]);
  expect(ended.status).toBe('completed');
  expect(creates[0]!.body.input).toEqual({ prompt: 'calm piano', duration: 8, output_format: 'mp3' });
  const [asset] = resultOf(ended, 'song') as string[];
  expect((await download(stack.gw, org.apiKey, asset!)).bytes.equals(mp3)).toBe(true);
});

test('params.model: owner/name:version runs that version; a malformed id is invalid_input', async () => {
  const version = 'b'.repeat(64);
  const { run: ended, creates } = await draw('by version', { model: `someone/sdxl:${version}` });
  expect(ended.status).toBe('completed');
  expect(creates[0]).toMatchObject({ path: '/v1/predictions', body: { version } });
  const bad = await draw('bad model', { model: 'not a model' });
  expect(failureOf(bad.run)).toEqual({
    reason: 'invalid_input',
    error: "Node 'draw': params.model 'not a model' is not a Replicate model (owner/name or owner/name:version)",
  });
  expect(bad.creates).toHaveLength(0);
});

test('a failed prediction fails the run with provider_error and Replicate’s error', async () => {
  double.script({ end: 'failed', error: 'CUDA out of memory. Tried to allocate 2.00 GiB' });
  const { run: ended } = await draw('too big');
  const failure = failureOf(ended);
  expect(failure.reason).toBe('provider_error');
  expect(failure.error).toMatch(/^Node 'draw': the prediction pred\d+ failed: CUDA out of memory/);
});

test('a prediction failed by the safety checker fails with content_policy', async () => {
  double.script({ end: 'failed', error: 'NSFW content detected. Try running it again, or try a different prompt.' });
  expect(failureOf((await draw('forbidden')).run).reason).toBe('content_policy');
});

test.each([
  [
    'invalid_input',
    'invalid_input',
    "Node 'draw': the provider refused the request (HTTP 422): - input.num_outputs: Must be less than or equal to 4",
    1,
  ],
  [
    'unauthorized',
    'provider_auth_required',
    "Node 'draw': the provider refused the credentials (HTTP 401); check REPLICATE_API_TOKEN",
    1,
  ],
  // A create answered 5xx may have made a prediction: it is not asked again.
  [
    'server_error',
    'provider_error',
    "Node 'draw': the provider failed (HTTP 500): The server had an error processing the request",
    1,
  ],
] as const)('a %s answer fails the run with %s', async (outcome, reason, error, count) => {
  double.respond(outcome);
  const { run: ended, creates } = await draw(`outcome ${outcome}`);
  expect(failureOf(ended)).toEqual({ reason, error });
  expect(creates).toHaveLength(count);
});

test('a 429 with Retry-After, then ok: created on the second try, the run completes', async () => {
  double.respond('rate_limited_then_ok');
  const { run: ended, creates } = await draw('busy hour');
  expect(ended.status).toBe('completed');
  expect(creates).toHaveLength(2);
});

test('polls answered 503 are retried: the run completes', async () => {
  double.failPolls(2);
  const { run: ended } = await draw('flaky polls');
  expect(ended.status).toBe('completed');
});

/** Starts a run of a held prediction; the run's id and the prediction's once the double has seen it polled. */
async function startHeld(prompt: string, params: Record<string, unknown> = {}) {
  double.script({ hold: true });
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: drawFlow(params), estimated_cost: 100 });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: prompt }] });
  expect(res.status).toBe(201);
  const prediction = await waitFor('the prediction to be polled', () => {
    const p = [...double.predictions.values()].find((x) => (x.input as { prompt?: string }).prompt === prompt);
    return p && pollsOf(p.id).length > 0 ? p : undefined;
  });
  return { runId: res.body.id as string, prediction };
}

test('cancelling the run mid-prediction cancels the prediction at Replicate', async () => {
  const { runId, prediction } = await startHeld('cancel me');
  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', org.apiKey).expect(204);
  await waitFor('the cancel to reach Replicate', () => double.cancels().includes(prediction.id));
  const ended = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`);
  expect(ended.status).toBe('canceled');
  expect(prediction.status).toBe('canceled');
});

test('a prediction running past the node’s timeout: timeout, and the prediction cancelled', async () => {
  const { runId, prediction } = await startHeld('too slow', { timeout_ms: 1500 });
  const ended = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`, undefined, 30_000);
  expect(failureOf(ended)).toEqual({ reason: 'timeout', error: expect.stringMatching(/1500 ms/) });
  await waitFor('the cancel to reach Replicate', () => double.cancels().includes(prediction.id));
});

test('a creation Replicate never answers: timeout within the node’s timeout_ms', async () => {
  double.respond('stall');
  const { run: ended, creates } = await draw('no answer', { timeout_ms: 1000 });
  expect(failureOf(ended)).toEqual({ reason: 'timeout', error: expect.stringMatching(/1000 ms/) });
  expect(creates).toHaveLength(1);
});

test('the token never appears in the worker’s logs', () => {
  expect(workerLog.length).toBeGreaterThan(0);
  expect(workerLog.join('\n')).not.toContain(TOKEN);
});
