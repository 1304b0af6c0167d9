import type { Flow, NodeType } from '@weft/contracts';
import {
  guardedFetch,
  parseAllowList,
  type NodeContext,
  type ProducedFile,
  type ProviderJobRef,
  type ProviderJobs,
} from '@weft/nodes';
import { createNodeRoutes, falAdapter, type DeploymentRoutes } from '@weft/providers';
import { FAL_IMAGE, startFalDouble, waitFor, type FalDouble } from '@weft/testing';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { solid, testTone, testVideo } from '../testing/media/generate';
import { download, failureOf, resultAssets, runAgent, runFlow, uploadAsset, type Org } from '../testing/media/runs';
import { pollRun } from '../testing/test-runs';
import { startRunStack, type RunStack } from '../testing/test-runs';

// The fal adapter through the API: a loopback double of fal's queue and
// storage protocols, driven by the real @fal-ai/client.

const KEY = 'fal-key-0123456789abcdef:very-secret';
let double: FalDouble;
let routes: DeploymentRoutes;
let stack: RunStack;
let org: Org;
const workerLog: string[] = [];

beforeAll(async () => {
  double = await startFalDouble(KEY);
  routes = createNodeRoutes(
    { NODE_ROUTES: 'upscale=fal' },
    { adapters: [falAdapter({ apiKey: KEY, baseURL: double.baseURL, pollIntervalMs: 20 })] },
  );
  stack = await startRunStack(
    {},
    {
      nodeRoutes: routes,
      logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
    },
  );
  org = await stack.gw.createOrg('Fal', 100_000);
});
afterEach(() => {
  double.respond('ok');
  double.pollsBeforeDone = 1;
});
afterAll(async () => {
  await stack?.close();
  await double?.close();
});

/** text_input `topic` → a node of `type` reading it at `prompt`. */
const promptFlow = (type: NodeType, params: Record<string, unknown> = {}, output = 'images'): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'make', type, params, inputs: { prompt: 'topic' } },
  ],
  outputs: [{ id: 'make', type: output as 'images', description: 'What it made' }],
});

/** Runs `flow` with `topic`; the run and the submission the double queued for it. */
async function ask(topic: string, flow: Flow) {
  const run = await runFlow(stack.gw, org.apiKey, flow, [{ id: 'topic', value: topic }]);
  const submissions = double.submissions.filter((s) => JSON.stringify(s.input).includes(topic));
  const submits = double.requests.filter((r) => r.method === 'POST' && JSON.stringify(r.body).includes(topic));
  return { run, submission: submissions.at(-1), submissions, submits };
}

const requestsFor = (requestId: string | undefined, suffix: string) =>
  double.requests.filter((r) => requestId && r.path.split('?')[0]!.endsWith(`/requests/${requestId}${suffix}`));

test('image_generation: count, aspect_ratio and loras reach the app; the images are stored', async () => {
  const loras = [{ url: 'https://example.com/style.safetensors', scale: 0.8 }];
  const { run, submission, submits } = await ask(
    'a lighthouse at dusk',
    promptFlow('image_generation', { count: 2, aspect_ratio: '16:9', loras }),
  );
  const ids = resultAssets(run, 'make');
  expect(ids).toHaveLength(2);
  // LoRA weights need the LoRA app: the default's variant serves the node.
  expect(submission).toMatchObject({
    app: 'fal-ai/flux-lora',
    input: {
      prompt: 'a lighthouse at dusk',
      num_images: 2,
      image_size: 'landscape_16_9',
      loras: [{ path: 'https://example.com/style.safetensors', scale: 0.8 }],
    },
  });
  expect(submits[0]!.authorization).toBe(`Key ${KEY}`);
  expect(submits[0]!.path).toBe('/fal-ai/flux-lora');
  const { bytes, headers } = await download(stack.gw, org.apiKey, ids[0]!);
  expect(headers['content-type']).toBe('image/png');
  expect(bytes.subarray(1, 4).toString()).toBe('PNG');
  // The status and result were asked under the app's owner/alias, as fal's queue has them.
  expect(requestsFor(submission?.requestId, '/status').length).toBeGreaterThan(0);
  expect(requestsFor(submission?.requestId, '')).toHaveLength(1);
});

test('an aspect ratio without a preset is sent as a size of about a megapixel', async () => {
  const { run, submission } = await ask('a wide banner', promptFlow('image_generation', { aspect_ratio: '3:1' }));
  expect(run.status).toBe('completed');
  expect(submission).toMatchObject({ app: 'fal-ai/flux/dev', input: { image_size: { width: 1776, height: 592 } } });
  expect(submission!.input).not.toHaveProperty('loras');
});

test('the cost is the app’s price applied to what it made, charged and recorded with its usage', async () => {
  const before = await balanceOf(stack.gw.deps.db, org.id);
  // Provider types reserve nothing of their own yet: the agent's author estimates.
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: promptFlow('image_generation', { count: 3 }),
    estimated_cost: 50,
  });
  const run = await runAgent(stack.gw, org.apiKey, agent.id, [{ id: 'topic', value: 'priced pictures' }]);
  expect(run.status).toBe('completed');
  // fal-ai/flux/dev: 25 credits a megapixel; 3 images of 64×48 = 0.009 MP → 0.23 → 1 credit.
  expect(run.cost).toBe(1);
  expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before - 1);
  const { rows } = await stack.gw.deps.db.pool.query(
    'SELECT node_id, node_type, provider, model, usage, credits FROM node_charges WHERE run_id = $1',
    [run.id],
  );
  const megapixels = Math.round(3 * ((FAL_IMAGE.width * FAL_IMAGE.height) / 1e6) * 1000) / 1000;
  expect(rows).toEqual([
    {
      node_id: 'make',
      node_type: 'image_generation',
      provider: 'fal',
      model: 'fal-ai/flux/dev',
      usage: { images: 3, megapixels },
      credits: 1,
    },
  ]);
});

test('image_edit: the image is uploaded to fal storage and the app reads it from there', async () => {
  const png = await solid(40, 30, '#ff0000');
  const id = await uploadAsset(stack.gw, org.apiKey, png, 'red.png');
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'pic', type: 'image_input' },
      { id: 'make', type: 'image_edit', inputs: { image: 'pic', prompt: 'topic' } },
    ],
    outputs: [{ id: 'make', type: 'images', description: 'The edit' }],
  };
  const run = await runFlow(stack.gw, org.apiKey, flow, [
    { id: 'topic', value: 'make it blue' },
    { id: 'pic', value: { asset_ids: [id] } },
  ]);
  expect(resultAssets(run, 'make')).toHaveLength(1);
  const upload = double.uploads.find((u) => u.bytes.equals(png));
  expect(upload).toMatchObject({ contentType: 'image/png' });
  const initiate = double.requests.find((r) => r.path.startsWith('/storage/upload/initiate'));
  expect(initiate).toMatchObject({ method: 'POST', authorization: `Key ${KEY}`, body: { content_type: 'image/png' } });
  expect(double.submissions.at(-1)).toMatchObject({
    app: 'fal-ai/flux-pro/kontext',
    input: { prompt: 'make it blue', image_url: upload!.url },
  });
});

test('upscale, routed to fal by NODE_ROUTES, sends the factor; params.provider local keeps it local', async () => {
  const png = await solid(20, 10, '#00ff00');
  const id = await uploadAsset(stack.gw, org.apiKey, png, 'green.png');
  const flow = (params: Record<string, unknown>): Flow => ({
    nodes: [
      { id: 'pic', type: 'image_input' },
      { id: 'big', type: 'upscale', params, inputs: { image: 'pic' } },
    ],
    outputs: [{ id: 'big', type: 'images', description: 'Larger' }],
  });
  const inputs = [{ id: 'pic', value: { asset_ids: [id] } }];
  const submitted = double.submissions.length;
  const routed = await runFlow(stack.gw, org.apiKey, flow({ factor: 4 }), inputs);
  expect(resultAssets(routed, 'big')).toHaveLength(1);
  expect(double.submissions.at(-1)).toMatchObject({ app: 'fal-ai/clarity-upscaler', input: { upscale_factor: 4 } });
  const local = await runFlow(stack.gw, org.apiKey, flow({ factor: 2, provider: 'local' }), inputs);
  expect(resultAssets(local, 'big')).toHaveLength(1);
  expect(double.submissions.length).toBe(submitted + 1);
});

test('video_generation: duration and aspect ratio reach the app; the video is stored and charged by its seconds', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: promptFlow('video_generation', { duration: 5, aspect_ratio: '9:16' }, 'videos'),
    estimated_cost: 1000,
  });
  const run = await runAgent(stack.gw, org.apiKey, agent.id, [{ id: 'topic', value: 'a cat surfing' }]);
  const [video] = resultAssets(run, 'make');
  expect(double.submissions.at(-1)).toMatchObject({
    app: 'fal-ai/kling-video/v2.5-turbo/pro/text-to-video',
    input: { prompt: 'a cat surfing', duration: '5', aspect_ratio: '9:16' },
  });
  const { headers } = await download(stack.gw, org.apiKey, video!);
  expect(headers['content-type']).toBe('video/mp4');
  // The double's clip is 2 s (fal's answer does not say: ffprobe measured it); 70 credits a second.
  const { rows } = await stack.gw.deps.db.pool.query('SELECT usage, credits FROM node_charges WHERE run_id = $1', [
    run.id,
  ]);
  expect(rows).toEqual([{ usage: { seconds: 2 }, credits: 140 }]);
  expect(run.cost).toBe(140);
});

test('music_generation: the length in ms reaches the app and the audio is stored', async () => {
  const { run, submission } = await ask('a calm piano', promptFlow('music_generation', { duration: 30 }, 'audio'));
  const [audio] = resultAssets(run, 'make');
  expect(submission).toMatchObject({
    app: 'fal-ai/elevenlabs/music',
    input: { prompt: 'a calm piano', music_length_ms: 30_000 },
  });
  expect((await download(stack.gw, org.apiKey, audio!)).headers['content-type']).toBe('audio/mpeg');
});

test('isolate_sound: the recording is uploaded and the voice stored', async () => {
  const wav = testTone(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fal-test-')), 'voice.wav'), 1, 300);
  const id = await uploadAsset(stack.gw, org.apiKey, wav, 'voice.wav');
  const flow: Flow = {
    nodes: [
      { id: 'rec', type: 'audio_input' },
      { id: 'voice', type: 'isolate_sound', inputs: { audio: 'rec' } },
    ],
    outputs: [{ id: 'voice', type: 'audio', description: 'The voice' }],
  };
  const run = await runFlow(stack.gw, org.apiKey, flow, [{ id: 'rec', value: { asset_ids: [id] } }]);
  expect(resultAssets(run, 'voice')).toHaveLength(1);
  const upload = double.uploads.find((u) => u.bytes.equals(wav));
  expect(upload).toBeDefined();
  expect(double.submissions.at(-1)).toMatchObject({
    app: 'fal-ai/elevenlabs/audio-isolation',
    input: { audio_url: upload!.url },
  });
});

test('a request that stays queued and in progress for several polls completes once fal says so', async () => {
  double.pollsBeforeDone = 5;
  const { run, submission } = await ask('patience', promptFlow('image_generation'));
  expect(resultAssets(run, 'make')).toHaveLength(1);
  expect(requestsFor(submission?.requestId, '/status')).toHaveLength(6);
  expect(requestsFor(submission?.requestId, '')).toHaveLength(1);
});

test.each([
  ['unauthorized', 'provider_auth_required', /refused the credentials \(HTTP 401\); check FAL_KEY$/],
  ['invalid_input', 'invalid_input', /refused the input: prompt: field required/],
  ['content_policy', 'content_policy', /refused the content: prompt: The content could not be processed/],
  ['failed', 'provider_error', /failed \(HTTP 500\): The app crashed/],
] as const)('a %s answer fails the run with %s', async (outcome, reason, message) => {
  double.respond(outcome);
  const { run } = await ask(`outcome ${outcome}`, promptFlow('image_generation'));
  const failure = failureOf(run);
  expect(failure.reason).toBe(reason);
  expect(failure.error).toMatch(message);
  expect(failure.error).toMatch(/^Node 'make'/);
  expect(failure.error).not.toContain(KEY.slice(0, 8));
});

test('a 503, then an answer: the SDK retries the submission and the run completes', async () => {
  double.respond('server_error_then_ok');
  const { run, submits, submissions } = await ask('flaky service', promptFlow('image_generation'));
  expect(resultAssets(run, 'make')).toHaveLength(1);
  expect(submits).toHaveLength(2);
  expect(submissions).toHaveLength(1);
});

test('a 429 with Retry-After, then an answer: the retry waits as long as fal asked', async () => {
  double.respond('rate_limited_then_ok');
  const { run, submits } = await ask('busy hour', promptFlow('image_generation'));
  expect(resultAssets(run, 'make')).toHaveLength(1);
  expect(submits).toHaveLength(2);
  expect(submits[1]!.at - submits[0]!.at).toBeGreaterThanOrEqual(1000);
});

test('a run cancelled while fal runs the request: the request is cancelled on fal', async () => {
  double.respond('stall');
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: promptFlow('image_generation') });
  const created = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'never finishes' }] })
    .expect(201);
  const submission = await waitFor('the request to be polled', async () => {
    const s = double.submissions.find((x) => x.input.prompt === 'never finishes');
    return s && requestsFor(s.requestId, '/status').length > 0 ? s : undefined;
  });
  await request(stack.gw.app).delete(`/runs/${created.body.id}`).set('X-Api-Key', org.apiKey).expect(204);
  await waitFor('the cancel to reach fal', async () =>
    double.cancels.includes(submission.requestId) ? true : undefined,
  );
  expect((await pollRun(stack.gw, org.apiKey, `/runs/${created.body.id}`)).status).toBe('canceled');
  expect(requestsFor(submission.requestId, '/cancel')[0]).toMatchObject({ method: 'PUT' });
});

test('a request that never completes: timeout within the node’s timeout_ms, and the request is cancelled', async () => {
  double.respond('stall');
  const { run, submission } = await ask('silence', promptFlow('image_generation', { timeout_ms: 1500 }));
  expect(failureOf(run)).toEqual({ reason: 'timeout', error: expect.stringMatching(/1500 ms/) });
  await waitFor('the cancel to reach fal', async () =>
    double.cancels.includes(submission!.requestId) ? true : undefined,
  );
});

/** Provider jobs of one attempt, kept in memory as the engine keeps them in PostgreSQL. */
function attemptJobs(): ProviderJobs & { job?: ProviderJobRef } {
  const jobs: ProviderJobs & { job?: ProviderJobRef } = {
    recall: async () => jobs.job,
    remember: async (job) => {
      jobs.job ??= job;
    },
    canceled: async () => undefined,
  };
  return jobs;
}

/** A context of one execution of the attempt whose jobs are `jobs`; what it stores is listed in `stored`. */
function executionOf(jobs: ProviderJobs, stored: ProducedFile[]): NodeContext {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fal-attempt-'));
  const none = async (): Promise<never> => {
    throw new Error('not used');
  };
  return {
    runId: 'run',
    organizationId: 'org',
    nodeId: 'make',
    nodeType: 'image_generation',
    attempt: 0,
    params: { count: 1 },
    inputs: { prompt: { type: 'text', value: 'taken over' } },
    runInput: undefined,
    signal: new AbortController().signal,
    assets: {
      info: none,
      read: none,
      download: none,
      url: none,
      copy: none,
      store: async (file, index) => {
        stored.push(file);
        return `asset-${index}`;
      },
    },
    outboundAllowList: ['127.0.0.1'],
    imageLimits: { maxPixels: 100_000_000 },
    tools: { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', espeak: 'espeak-ng' },
    workDir: async () => dir,
    providerJobs: jobs,
  };
}

test('a second execution of the same attempt polls the request the first submitted: fal sees one submission', async () => {
  double.respond('stall');
  const route = await routes.routeFor('image_generation', {}, 'org');
  if (!('execute' in route)) throw new Error('no fal route');
  const jobs = attemptJobs();
  const stored: ProducedFile[] = [];
  // The first execution submits, remembers and polls: then its worker is lost (it is left waiting).
  const first = route.execute(executionOf(jobs, stored));
  await waitFor('the first execution to poll', async () =>
    jobs.job && requestsFor(jobs.job.id, '/status').length > 0 ? true : undefined,
  );
  expect(jobs.job).toMatchObject({ provider: 'fal', state: { app: 'fal-ai/flux/dev' } });
  const second = route.execute(executionOf(jobs, stored));
  double.release();
  const [a, b] = await Promise.all([first, second]);
  expect(b.output).toEqual({ type: 'images', value: ['asset-0'] });
  expect(a.output).toEqual(b.output);
  expect(double.submissions.filter((s) => s.input.prompt === 'taken over')).toHaveLength(1);
  expect(requestsFor(jobs.job!.id, '')).toHaveLength(2);
});

test('the key never appears in the worker’s logs', () => {
  expect(workerLog.length).toBeGreaterThan(0);
  expect(workerLog.join('\n')).not.toContain(KEY);
  expect(workerLog.join('\n')).not.toContain('very-secret');
});

test('verify: a good key passes, a refused one fails (POST /credentials checks keys this way)', async () => {
  const adapter = routes.adapters.get('fal')!;
  const signal = AbortSignal.timeout(10_000);
  const good = adapter.connect(
    { secret: KEY, baseURL: double.baseURL, origin: { kind: 'organization', id: 'c1' } },
    undefined,
  );
  await expect(adapter.verify(good, signal)).resolves.toBeUndefined();
  const bad = adapter.connect(
    { secret: 'wrong', baseURL: double.baseURL, origin: { kind: 'organization', id: 'c2' } },
    undefined,
  );
  await expect(adapter.verify(bad, signal)).rejects.toMatchObject({ status: 401 });
});

test('an organization’s base URL goes through the outbound rules: a refused one fails with invalid_input', async () => {
  const adapter = routes.adapters.get('fal')!;
  const credential = { secret: KEY, baseURL: double.baseURL, origin: { kind: 'organization' as const, id: 'c3' } };
  const client = adapter.connect(credential, guardedFetch(parseAllowList([])));
  const route = await createNodeRoutes(
    {},
    {
      adapters: [adapter],
      organizations: {
        forProvider: async () => credential,
        byId: async () => undefined,
        chosenRoutes: async () => new Map(),
      },
    },
  ).routeFor('image_generation', {}, 'org');
  if (!('execute' in route)) throw new Error('no fal route');
  const before = double.requests.length;
  await expect(route.execute(executionOf(attemptJobs(), []))).rejects.toMatchObject({
    reason: 'invalid_input',
    message: expect.stringMatching(
      /^Node 'make': the provider's base URL: 127\.0\.0\.1 is .*, which nodes may not reach/,
    ),
  });
  await expect(adapter.verify(client, AbortSignal.timeout(10_000))).rejects.toThrow(/may not reach/);
  expect(double.requests.length).toBe(before);
});

test.each([
  ['image_generation_lora', 'fal-ai/flux-lora'],
  ['camera_angle', 'fal-ai/qwen-image-edit-2511-multiple-angles'],
  ['remove_background', 'fal-ai/birefnet'],
] as const)('%s: the image reaches %s and its result is stored as an image', async (type, app) => {
  const png = await solid(24, 16, '#8844ff');
  const id = await uploadAsset(stack.gw, org.apiKey, png, `${type}.png`);
  const takesPrompt = type !== 'remove_background';
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'pic', type: 'image_input' },
      {
        id: 'make',
        type,
        inputs: takesPrompt ? { image: 'pic', prompt: 'topic' } : { image: 'pic' },
        ...(type === 'image_generation_lora'
          ? { params: { loras: [{ url: 'https://example.com/style.safetensors', scale: 0.8 }] } }
          : {}),
      },
    ],
    outputs: [{ id: 'make', type: 'images', description: 'The result' }],
  };
  const run = await runFlow(stack.gw, org.apiKey, flow, [
    { id: 'topic', value: `${type} please` },
    { id: 'pic', value: { asset_ids: [id] } },
  ]);
  const [made] = resultAssets(run, 'make');
  expect(double.submissions.at(-1)?.app).toBe(app);
  expect((await download(stack.gw, org.apiKey, made!)).headers['content-type']).toBe('image/png');
});

test.each([
  ['video_background_removal', {}, 'fal-ai/birefnet/v2/video'],
  ['upscale_video', { provider: 'fal' }, 'fal-ai/topaz/upscale/video'],
] as const)('%s: the video is uploaded to fal and the result stored as a video', async (type, params, app) => {
  const mp4 = testVideo(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fal-test-')), 'clip.mp4'), 1);
  const id = await uploadAsset(stack.gw, org.apiKey, mp4, 'clip.mp4');
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: {
      nodes: [
        { id: 'clip', type: 'video_input' },
        { id: 'make', type, params, inputs: { video: 'clip' } },
      ],
      outputs: [{ id: 'make', type: 'videos', description: 'The result' }],
    },
    estimated_cost: 5000,
  });
  const run = await runAgent(stack.gw, org.apiKey, agent.id, [{ id: 'clip', value: { asset_ids: [id] } }]);
  const [made] = resultAssets(run, 'make');
  expect(double.uploads.some((u) => u.bytes.equals(mp4))).toBe(true);
  expect(double.submissions.at(-1)?.app).toBe(app);
  expect((await download(stack.gw, org.apiKey, made!)).headers['content-type']).toBe('video/mp4');
});
