import type { Flow } from '@weft/contracts';
import { createNodeRoutes, openAIAdapter } from '@weft/providers';
import { startOpenAIDouble, waitFor, type OpenAIDouble } from '@weft/testing';
import pino from 'pino';
import request from 'supertest';
import sharp from 'sharp';
import { postAgent } from '../testing/catalog-fixtures';
import { clip, removeClipFiles, solid, tone } from '../testing/media/generate';
import { assetRecord, download, failureOf, resultAssets, resultOf, runAgent, uploadAsset } from '../testing/media/runs';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// image_generation, image_edit, image_erase, text_to_speech, transcribe and
// video_generation through an OpenAI-compatible server: a loopback double
// speaking OpenAI's protocol, driven by the real SDK, through the HTTP API.

// The resume test starts worker processes from source: tens of seconds on a busy machine.
jest.setTimeout(180_000);

const KEY = 'sk-test-media-0123456789-very-secret';
let double: OpenAIDouble;
let stack: RunStack;
let routed: RunStack;
let org: { id: string; apiKey: string };
let routedOrg: { id: string; apiKey: string };
const workerLog: string[] = [];
const processes: WorkerProcess[] = [];

beforeAll(async () => {
  double = await startOpenAIDouble();
  const routes = (nodeRoutes?: string) =>
    createNodeRoutes(
      { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: double.baseURL, NODE_ROUTES: nodeRoutes },
      // Video jobs polled every 50 ms instead of 5 s.
      { adapters: [openAIAdapter({ apiKey: KEY, baseURL: double.baseURL, videoPollIntervalMs: 50 })] },
    );
  [stack, routed] = await Promise.all([
    startRunStack(
      // The gateway's own routes, which GET /node-types describes.
      { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: double.baseURL },
      {
        nodeRoutes: routes(),
        logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
      },
    ),
    startRunStack({}, { nodeRoutes: routes('text_to_speech=openai:tts-1') }),
  ]);
  [org, routedOrg] = await Promise.all([stack.gw.createOrg('Media', 100_000), routed.gw.createOrg('Routed', 10_000)]);
});
afterEach(() => {
  double.respond('ok');
  double.video = { polls: 2, end: 'completed' };
});
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await Promise.all([stack?.close(), routed?.close()]);
  await double?.close();
  removeClipFiles();
});

type NodeSpec = Flow['nodes'][number];

/**
 * A flow of one node `make` of `type` whose output is the result, each of its
 * ports fed by an input node of the port's name (`text_input`, `image_input`...).
 */
function oneNode(
  type: string,
  output: Flow['outputs'][number]['type'],
  ports: Record<string, string>,
  params: Record<string, unknown> = {},
): Flow {
  const sources = Object.entries(ports).map(([port, kind]) => ({ id: port, type: kind }) as NodeSpec);
  const links = Object.fromEntries(Object.keys(ports).map((port) => [port, port]));
  return {
    nodes: [...sources, { id: 'make', type, params, inputs: links } as NodeSpec],
    outputs: [{ id: 'make', type: output, description: 'What the node made' }],
  };
}

/** Publishes `flow` reserving `reserve` credits and runs it with `inputs` (input node id → value) to its end. */
async function run(flow: Flow, inputs: Record<string, unknown>, on = stack, apiKey = org.apiKey, reserve = 2000) {
  const agent = await postAgent(on.gw.app, apiKey, { flow, estimated_cost: reserve });
  return runAgent(
    on.gw,
    apiKey,
    agent.id,
    Object.entries(inputs).map(([id, value]) => ({ id, value })),
  );
}

/** The requests to `path` whose prompt (or input text) holds `text`. */
const about = (path: string, text: string) =>
  double
    .to(path)
    .filter((r) => [r.body.prompt, r.body.input].some((said) => typeof said === 'string' && said.includes(text)));

async function chargesOf(runId: string) {
  const { rows } = await stack.gw.deps.db.pool.query(
    'SELECT node_id, node_type, provider, model, usage, credits FROM node_charges WHERE run_id = $1',
    [runId],
  );
  return rows;
}

const upload = async (bytes: Buffer, name: string) => ({
  asset_ids: [await uploadAsset(stack.gw, org.apiKey, bytes, name)],
});
const bytesOf = async (id: string) => (await download(stack.gw, org.apiKey, id)).bytes;

describe('image_generation', () => {
  test('count and aspect_ratio become n and the nearest size; PNG assets, charged by the tokens reported', async () => {
    const flow = oneNode('image_generation', 'images', { prompt: 'text_input' }, { count: 2, aspect_ratio: '16:9' });
    const result = await run(flow, { prompt: 'two red foxes' });
    const ids = resultAssets(result, 'make');
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      expect(await sharp(await bytesOf(id)).metadata()).toMatchObject({ format: 'png', width: 1536, height: 1024 });
      expect(await assetRecord(stack.gw, org.apiKey, id)).toMatchObject({ media_type: 'image' });
    }
    const sent = about('/images/generations', 'two red foxes');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(sent[0]!.body).toEqual({ model: 'gpt-image-1', prompt: 'two red foxes', n: 2, size: '1536x1024' });
    // gpt-image-1: 50 input tokens at 10 000 and 4160 output tokens at 40 000 credits per million: 166.9 → 167.
    expect(result.cost).toBe(167);
    expect(await chargesOf(result.id)).toEqual([
      {
        node_id: 'make',
        node_type: 'image_generation',
        provider: 'openai',
        model: 'gpt-image-1',
        usage: { images: 2, input_tokens: 50, output_tokens: 4160 },
        credits: 167,
      },
    ]);
  });

  test('DALL·E is asked for base64 at its own sizes and charged per image', async () => {
    const flow = oneNode(
      'image_generation',
      'images',
      { prompt: 'text_input' },
      { model: 'dall-e-3', aspect_ratio: '9:16' },
    );
    const result = await run(flow, { prompt: 'a tall lighthouse' });
    expect(resultAssets(result, 'make')).toHaveLength(1);
    expect(about('/images/generations', 'a tall lighthouse')[0]!.body).toMatchObject({
      model: 'dall-e-3',
      n: 1,
      size: '1024x1792',
      response_format: 'b64_json',
    });
    expect(result.cost).toBe(80);
  });

  test('a reference image makes it an edit of that image', async () => {
    const reference = await solid(40, 30, '#00ff00');
    const flow = oneNode('image_generation', 'images', { prompt: 'text_input', image: 'image_input' });
    const result = await run(flow, { prompt: 'the same, at night', image: await upload(reference, 'ref.png') });
    expect(resultAssets(result, 'make')).toHaveLength(1);
    expect(about('/images/generations', 'the same, at night')).toHaveLength(0);
    const [sent] = about('/images/edits', 'the same, at night');
    expect(sent!.body).toMatchObject({ model: 'gpt-image-1', n: '1' });
    expect(sent!.files.image).toMatchObject({ name: 'reference.png', type: 'image/png' });
    expect(sent!.files.image!.bytes.equals(reference)).toBe(true);
  });

  test.each([
    ['unauthorized', 'provider_auth_required', /refused the credentials \(HTTP 401\); check OPENAI_API_KEY/, 1],
    ['content_policy', 'content_policy', /rejected by the safety system/, 1],
    ['server_error', 'provider_error', /HTTP 500/, 3],
  ] as const)('a %s answer fails the run with %s', async (outcome, reason, message, calls) => {
    double.respond(outcome);
    const prompt = `image outcome ${outcome}`;
    const failure = failureOf(await run(oneNode('image_generation', 'images', { prompt: 'text_input' }), { prompt }));
    expect(failure.reason).toBe(reason);
    expect(failure.error).toMatch(message);
    expect(failure.error).toContain("Node 'make'");
    expect(failure.error).not.toContain('sk-te');
    expect(about('/images/generations', prompt)).toHaveLength(calls);
  });
});

test('image_edit: images.edit of the input image as it is stored, with the prompt', async () => {
  const picture = await solid(32, 32, '#0000ff', 'jpeg');
  const flow = oneNode('image_edit', 'images', { image: 'image_input', prompt: 'text_input' });
  const result = await run(flow, { image: await upload(picture, 'blue.jpg'), prompt: 'add a hat' });
  const [id] = resultAssets(result, 'make');
  expect(await sharp(await bytesOf(id!)).metadata()).toMatchObject({ format: 'png' });
  const [sent] = about('/images/edits', 'add a hat');
  expect(sent!.body).toMatchObject({ model: 'gpt-image-1', prompt: 'add a hat' });
  expect(sent!.files.image).toMatchObject({ name: 'image.jpg', type: 'image/jpeg' });
  expect(sent!.files.image!.bytes.equals(picture)).toBe(true);
  expect(sent!.files.mask).toBeUndefined();
});

describe('image_erase', () => {
  test('our mask (white where to erase) becomes OpenAI’s: the image’s size, transparent where to erase', async () => {
    const picture = await solid(64, 48, '#ff0000');
    // White on the left half, black on the right, at half the image's size: it is stretched to it.
    const white = await solid(16, 24, '#ffffff');
    const mask = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#000000' } })
      .composite([{ input: white, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const flow = oneNode('image_erase', 'images', { image: 'image_input', mask: 'image_input' });
    const result = await run(flow, { image: await upload(picture, 'red.png'), mask: await upload(mask, 'mask.png') });
    expect(resultAssets(result, 'make')).toHaveLength(1);
    const sent = double.to('/images/edits').at(-1)!;
    expect(sent.body.prompt).toMatch(/transparent area/);
    const sentMask = sharp(sent.files.mask!.bytes);
    expect(await sentMask.metadata()).toMatchObject({ format: 'png', width: 64, height: 48, channels: 4 });
    const { data } = await sentMask.raw().toBuffer({ resolveWithObject: true });
    const alphaAt = (x: number, y: number) => data[(y * 64 + x) * 4 + 3];
    expect(alphaAt(5, 10)).toBe(0);
    expect(alphaAt(58, 40)).toBe(255);
    // The mask carries the image's own pixels, and the image goes as a PNG of the same size.
    expect([...data.subarray((10 * 64 + 58) * 4, (10 * 64 + 58) * 4 + 3)]).toEqual([255, 0, 0]);
    expect(await sharp(sent.files.image!.bytes).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
  });

  test('without a mask the prompt says what to remove; with neither, invalid_input', async () => {
    const picture = await upload(await solid(20, 20, '#ffff00'), 'yellow.png');
    const named = await run(oneNode('image_erase', 'images', { image: 'image_input', prompt: 'text_input' }), {
      image: picture,
      prompt: 'the lamppost',
    });
    expect(resultAssets(named, 'make')).toHaveLength(1);
    const [sent] = about('/images/edits', 'the lamppost');
    expect(sent!.body.prompt).toBe(
      'Remove the lamppost from the image and fill in where it was to match its surroundings.',
    );
    expect(sent!.files.mask).toBeUndefined();
    const before = double.requests.length;
    const nothing = await run(oneNode('image_erase', 'images', { image: 'image_input' }), { image: picture });
    expect(failureOf(nothing)).toEqual({
      reason: 'invalid_input',
      error: "Node 'make' needs a mask at input 'mask' or what to erase at input 'prompt'",
    });
    expect(double.requests.length).toBe(before);
  });
});

describe('text_to_speech', () => {
  test('params.provider=openai: MP3 speech of the text in the voice asked for, charged per character', async () => {
    const flow = oneNode('text_to_speech', 'audio', { text: 'text_input' }, { provider: 'openai', voice: 'nova' });
    const result = await run(flow, { text: 'Good morning, Weft.' });
    const [id] = resultAssets(result, 'make');
    expect(await assetRecord(stack.gw, org.apiKey, id!)).toMatchObject({
      media_type: 'audio',
      media_extension: 'mp3',
    });
    const [sent, ...more] = about('/audio/speech', 'Good morning, Weft.');
    expect(more).toHaveLength(0);
    expect(sent!.body).toEqual({
      model: 'gpt-4o-mini-tts',
      input: 'Good morning, Weft.',
      voice: 'nova',
      response_format: 'mp3',
    });
    // 19 characters at 15 credits per thousand: 0.285 → 1.
    expect(await chargesOf(result.id)).toEqual([
      expect.objectContaining({ model: 'gpt-4o-mini-tts', usage: { characters: 19 }, credits: 1 }),
    ]);
  });

  test('the local route stays the default; NODE_ROUTES=text_to_speech=openai sends it to the adapter', async () => {
    const flow = oneNode('text_to_speech', 'audio', { text: 'text_input' });
    const local = await run(flow, { text: 'spoken by espeak' });
    const [wav] = resultAssets(local, 'make');
    expect(await assetRecord(stack.gw, org.apiKey, wav!)).toMatchObject({ media_extension: 'wav' });
    expect(about('/audio/speech', 'spoken by espeak')).toHaveLength(0);

    const viaRoute = await run(flow, { text: 'spoken by openai' }, routed, routedOrg.apiKey);
    expect(viaRoute.status).toBe('completed');
    const [sent] = about('/audio/speech', 'spoken by openai');
    expect(sent!.body).toMatchObject({ model: 'tts-1', voice: 'alloy' });
  });
});

describe('transcribe', () => {
  test('an audio file is sent as it is; format srt and language reach the request; charged per second', async () => {
    double.transcript = 'A tone, transcribed.';
    const flow = oneNode('transcribe', 'text', { media: 'audio_input' }, { format: 'srt', language: 'en' });
    const result = await run(flow, { media: await upload(tone(2), 'tone.wav') });
    expect(result.status).toBe('completed');
    expect(resultOf(result, 'make')).toBe('1\n00:00:00,000 --> 00:00:02,000\nA tone, transcribed.\n\n');
    const sent = double.to('/audio/transcriptions').at(-1)!;
    expect(sent.body).toEqual({ model: 'whisper-1', response_format: 'srt', language: 'en' });
    expect(sent.files.file!.name).toBe('speech.wav');
    expect(sent.files.file!.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    // 2 s of whisper-1 at 0.1 credit a second: 0.2 → 1.
    expect(await chargesOf(result.id)).toEqual([
      expect.objectContaining({ node_type: 'transcribe', model: 'whisper-1', usage: { seconds: 2 }, credits: 1 }),
    ]);
  });

  test('a video’s sound track is extracted to MP3 first; text is the default format', async () => {
    double.transcript = 'The sound of a video.';
    const flow = oneNode('transcribe', 'text', { media: 'video_input' });
    const result = await run(flow, { media: await upload(clip({ seconds: 3, sound: true }), 'talk.mp4') });
    expect(resultOf(result, 'make')).toBe('The sound of a video.');
    const sent = double.to('/audio/transcriptions').at(-1)!;
    expect(sent.body.response_format).toBe('text');
    expect(sent.files.file).toMatchObject({ name: 'speech.mp3', type: 'audio/mpeg' });
    const head = sent.files.file!.bytes;
    expect(head.subarray(0, 3).toString('latin1') === 'ID3' || (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0)).toBe(
      true,
    );
    const [charge] = await chargesOf(result.id);
    expect(charge.usage.seconds).toBeCloseTo(3, 1);
  });

  test('a video without sound is refused with invalid_input before any request', async () => {
    const before = double.to('/audio/transcriptions').length;
    const result = await run(oneNode('transcribe', 'text', { media: 'video_input' }), {
      media: await upload(clip({ seconds: 1 }), 'silent.mp4'),
    });
    expect(failureOf(result)).toMatchObject({ reason: 'invalid_input', error: expect.stringMatching(/has no sound/) });
    expect(double.to('/audio/transcriptions')).toHaveLength(before);
  });
});

describe('video_generation', () => {
  const videoFlow = (params: Record<string, unknown> = {}, image = false) =>
    oneNode('video_generation', 'videos', { prompt: 'text_input', ...(image ? { image: 'image_input' } : {}) }, params);

  test('one job created, polled until completed, downloaded as an MP4 asset; charged per second', async () => {
    const result = await run(videoFlow({ duration: 7, aspect_ratio: '16:9' }), { prompt: 'a paper boat' });
    const [id] = resultAssets(result, 'make');
    expect(await assetRecord(stack.gw, org.apiKey, id!)).toMatchObject({
      media_type: 'video',
      media_extension: 'mp4',
    });
    const created = about('/videos', 'a paper boat');
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toEqual({ model: 'sora-2', prompt: 'a paper boat', seconds: '8', size: '1280x720' });
    const job = double.videoFor('a paper boat')!;
    // Two answers in progress, then completed.
    expect(double.to(`/videos/${job}`, 'GET')).toHaveLength(3);
    expect(double.to(`/videos/${job}/content`, 'GET')).toHaveLength(1);
    expect(double.deletedVideos.has(job)).toBe(false);
    // 8 s of sora-2 at 100 credits a second.
    expect(result.cost).toBe(800);
    expect(await chargesOf(result.id)).toEqual([
      {
        node_id: 'make',
        node_type: 'video_generation',
        provider: 'openai',
        model: 'sora-2',
        usage: { seconds: 8 },
        credits: 800,
      },
    ]);
  });

  test('an image input is the first frame, sent at the video’s size', async () => {
    const result = await run(videoFlow({}, true), {
      prompt: 'the kite takes off',
      image: await upload(await solid(300, 600, '#8844aa'), 'kite.png'),
    });
    expect(result.status).toBe('completed');
    const [sent] = about('/videos', 'the kite takes off');
    // No aspect_ratio: the image's own (portrait) shape chooses the size.
    expect(sent!.body.size).toBe('720x1280');
    expect(await sharp(sent!.files.input_reference!.bytes).metadata()).toMatchObject({
      format: 'png',
      width: 720,
      height: 1280,
    });
  });

  test.each([
    ['failed', 'provider_error', /video job failed: Video generation failed/],
    ['moderated', 'content_policy', /refused the content: The request was blocked/],
  ] as const)('a job that ends %s fails the run with %s', async (end, reason, message) => {
    double.video = { polls: 1, end };
    const failure = failureOf(await run(videoFlow(), { prompt: `a job that ends ${end}` }));
    expect(failure.reason).toBe(reason);
    expect(failure.error).toMatch(message);
  });

  test('a create refused with 401 fails with provider_auth_required, no job remembered', async () => {
    double.respond('unauthorized');
    const result = await run(videoFlow(), { prompt: 'no key for this' });
    expect(failureOf(result).reason).toBe('provider_auth_required');
    const { rows } = await stack.gw.deps.db.pool.query('SELECT 1 FROM provider_jobs WHERE run_id = $1', [result.id]);
    expect(rows).toHaveLength(0);
  });

  test('a run cancelled mid-job: the job is deleted at the provider', async () => {
    double.video = { polls: 1_000_000, end: 'completed' };
    const agent = await postAgent(stack.gw.app, org.apiKey, { flow: videoFlow(), estimated_cost: 2000 });
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', org.apiKey)
      .send({ agent_id: agent.id, inputs: [{ id: 'prompt', value: 'never finishes' }] });
    expect(res.status).toBe(201);
    const job = await waitFor('the job created and polled', () => {
      const id = double.videoFor('never finishes');
      return id && double.to(`/videos/${id}`, 'GET').length > 0 ? id : undefined;
    });
    await request(stack.gw.app).delete(`/runs/${res.body.id}`).set('X-Api-Key', org.apiKey).expect(204);
    await waitFor('the job deleted', () => double.deletedVideos.has(job));
    expect(double.to(`/videos/${job}`, 'DELETE')).toHaveLength(1);
    expect((await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`)).status).toBe('canceled');
  });

  test('a worker killed while polling: the next one resumes the same job, created once', async () => {
    const durable = await startRunStack({}, false);
    try {
      const owner = await durable.gw.createOrg('Durable', 10_000);
      const env = {
        ...servicesEnvOf(durable.gw.config),
        DATABASE_POOL_SIZE: '4',
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: double.baseURL,
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        WORKER_LOCK_DURATION_MS: '2000',
        RECONCILE_INTERVAL_MS: '500',
        RECONCILE_STALE_MS: '1500',
      };
      const spawn = async () => {
        const worker = startWorkerProcess(env);
        processes.push(worker);
        await worker.ready;
        return worker;
      };
      // The first worker's poll answers in progress; the next one, the resumed worker's, completed.
      double.video = { polls: 1, end: 'completed' };
      const first = await spawn();
      const agent = await postAgent(durable.gw.app, owner.apiKey, { flow: videoFlow(), estimated_cost: 2000 });
      const res = await request(durable.gw.app)
        .post('/runs')
        .set('X-Api-Key', owner.apiKey)
        .send({ agent_id: agent.id, inputs: [{ id: 'prompt', value: 'resumed after a crash' }] });
      expect(res.status).toBe(201);
      const job = await waitFor(
        'the job created and polled once',
        () => {
          const id = double.videoFor('resumed after a crash');
          return id && double.to(`/videos/${id}`, 'GET').length > 0 ? id : undefined;
        },
        { timeoutMs: 60_000 },
      );
      first.child.kill('SIGKILL');
      await first.exited;
      const second = await spawn();
      const ended = await pollRun(durable.gw, owner.apiKey, `/runs/${res.body.id}`, undefined, 90_000);
      expect(ended.status).toBe('completed');
      expect(about('/videos', 'resumed after a crash')).toHaveLength(1);
      expect(double.to(`/videos/${job}/content`, 'GET')).toHaveLength(1);
      for (const worker of [first, second]) expect(worker.lines.join('\n')).not.toContain(KEY);
      second.child.kill('SIGTERM');
      await second.exited;
    } finally {
      await durable.close();
    }
  });
});

test('the key never appears in the worker’s logs', () => {
  expect(workerLog.length).toBeGreaterThan(0);
  expect(workerLog.join('\n')).not.toContain(KEY);
});

test('GET /node-types shows openai as the route of the media types it serves', async () => {
  for (const [type, model] of [
    ['image_generation', 'gpt-image-1'],
    ['image_erase', 'gpt-image-1'],
    ['transcribe', 'whisper-1'],
    ['video_generation', 'sora-2'],
  ]) {
    const res = await request(stack.gw.app).get(`/node-types/${type}`).set('X-Api-Key', org.apiKey).expect(200);
    expect(res.body.route).toEqual({ provider: 'openai', model });
  }
});
