import fs from 'node:fs';
import path from 'node:path';
import { createNodeRoutes, creditsFor, DEFAULT_PRICES } from '@weft/providers';
import { startOpenAIDouble, type OpenAIDouble } from '@weft/testing';
import pino from 'pino';
import sharp from 'sharp';
import request from 'supertest';
import { clip, removeClipFiles } from '../testing/media/generate';
import { frameAt, near, pixelsOf } from '../testing/media/pixels';
import { probeFile } from '../testing/media/probe';
import { download, downloadTo, resultAssets, resultOf, uploadAsset } from '../testing/media/runs';
import { mediaDir } from '../testing/media/files';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../testing/test-runs';

// The catalog's provider examples (catalog/social-post-from-brief.json,
// catalog/narrated-clip.json), published exactly as stored, run through the
// HTTP API on a deployment whose only provider setting is OPENAI_API_KEY
// (pointed at the OpenAI double): the one variable the catalog says to set.

jest.setTimeout(120_000);

const CATALOG = path.resolve(__dirname, '..', '..', '..', '..', 'catalog');
const KEY = 'sk-test-catalog-0123456789-very-secret';
let double: OpenAIDouble;
let stack: RunStack;
let keyless: RunStack;
let org: { id: string; apiKey: string };
const workerLog: string[] = [];
const media = mediaDir();

beforeAll(async () => {
  double = await startOpenAIDouble();
  // What a short caption and a medium-quality 1024×1024 gpt-image-1 picture report.
  double.usage = { prompt_tokens: 320, completion_tokens: 60 };
  double.imageUsage = { input_tokens: 60, output_tokens: 1056 };
  const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: double.baseURL };
  [stack, keyless] = await Promise.all([
    startRunStack(env, {
      nodeRoutes: createNodeRoutes(env),
      logger: pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) }),
    }),
    // A deployment without the key: what running the examples before setting it looks like.
    startRunStack({}, { nodeRoutes: createNodeRoutes({}) }),
  ]);
  org = await stack.gw.createOrg('Catalog providers', 1000);
});
afterAll(async () => {
  await Promise.all([stack?.close(), keyless?.close()]);
  await double?.close();
  removeClipFiles();
  media.cleanup();
});

/** POST /agents with the catalog file as stored, then POST /apps for each of its apps; the agent's id. */
async function publish(file: string, on = stack, apiKey = org.apiKey): Promise<string> {
  const { kind, apps, ...agent } = JSON.parse(fs.readFileSync(path.join(CATALOG, file), 'utf8')) as {
    kind: string;
    apps: object[];
    [field: string]: unknown;
  };
  expect(kind).toBe('agent');
  const created = await request(on.gw.app).post('/agents').set('X-Api-Key', apiKey).send(agent);
  expect(created.status).toBe(201);
  for (const app of apps) {
    const res = await request(on.gw.app)
      .post('/apps')
      .set('X-Api-Key', apiKey)
      .send({ ...app, agent_id: created.body.id });
    expect(res.status).toBe(201);
  }
  return created.body.id as string;
}

async function start(agentId: string, inputs: object[]): Promise<string> {
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agentId, inputs });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

interface Charge {
  node_id: string;
  provider: string;
  model: string;
  usage: Record<string, number>;
  credits: number;
}

async function chargesOf(runId: string): Promise<Charge[]> {
  const { rows } = await stack.gw.deps.db.pool.query<Charge>(
    'SELECT node_id, provider, model, usage, credits FROM node_charges WHERE run_id = $1 ORDER BY node_id',
    [runId],
  );
  return rows;
}

/** The run's charges are the usage reported priced by the default table, and its cost their sum. */
async function expectPricedCost(run: RunBody): Promise<Charge[]> {
  const charges = await chargesOf(run.id);
  for (const c of charges) {
    expect({ node: c.node_id, credits: c.credits }).toEqual({
      node: c.node_id,
      credits: creditsFor(DEFAULT_PRICES, c.provider, c.model, c.usage),
    });
  }
  expect(run.cost).toBe(charges.reduce((sum, c) => sum + c.credits, 0));
  return charges;
}

/** The chat requests the double answered whose messages hold `text`. */
const chatsAbout = (text: string) =>
  double.to('/chat/completions').filter((r) => JSON.stringify(r.body.messages).includes(text));

test('social-post-from-brief: caption, picture, review, then the logo on the approved picture', async () => {
  const agentId = await publish('social-post-from-brief.json');
  // A magenta square logo on a transparent margin.
  const logo = await sharp({
    create: { width: 120, height: 120, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
  })
    .composite([
      { input: { create: { width: 100, height: 100, channels: 4, background: '#ff00ff' } }, top: 10, left: 10 },
    ])
    .png()
    .toBuffer();
  const mark = await uploadAsset(stack.gw, org.apiKey, logo, 'logo.png');
  const brief = 'Our bakery opens a second shop on Elm Street this Saturday';
  const runId = await start(agentId, [
    { id: 'brief', value: brief },
    { id: 'logo', value: { asset_ids: [mark] } },
  ]);

  const parked = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`, (r) => r.awaiting_human_review === true, 60_000);
  const review = (parked.pending_reviews as { id: string; proposed_output: { asset_ids: string[] } }[])[0]!;
  const proposed = await pixelsOf((await download(stack.gw, org.apiKey, review.proposed_output.asset_ids[0]!)).bytes);
  expect([proposed.width, proposed.height]).toEqual([1024, 1024]);
  // No logo before the review: the double's picture is plain red there.
  expect(near(proposed.at(892, 132), [0xd6, 0x28, 0x28], 8)).toBe(true);

  // The caption writer gets the brief under its instructions; the art director the brief and the caption.
  const [caption, describe] = chatsAbout(brief);
  expect(caption!.authorization).toBe(`Bearer ${KEY}`);
  expect(caption!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.7, max_tokens: 300 });
  expect(caption!.body.messages).toEqual([
    { role: 'system', content: expect.stringContaining('You write captions') },
    { role: 'user', content: brief },
  ]);
  expect(describe!.body.messages).toEqual([
    { role: 'system', content: expect.stringContaining('You are an art director') },
    { role: 'user', content: brief },
    { role: 'user', content: `echo: ${brief}` },
  ]);
  const [drawn] = double.to('/images/generations').filter((r) => r.body.prompt === `echo: echo: ${brief}`);
  expect(drawn!.body).toEqual({
    model: 'gpt-image-1',
    prompt: `echo: echo: ${brief}`,
    n: 1,
    size: '1024x1024',
    quality: 'medium',
  });

  await request(stack.gw.app)
    .post(`/runs/${runId}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'approve', output: review.proposed_output })
    .expect(204);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`, undefined, 60_000);
  expect(done.status).toBe('completed');
  expect(resultOf(done, 'caption')).toBe(`echo: ${brief}`);
  const [branded] = resultAssets(done, 'branded');
  const out = await pixelsOf((await download(stack.gw, org.apiKey, branded!)).bytes);
  expect([out.width, out.height]).toEqual([1024, 1024]);
  // scale 0.18 of 1024 = 184 px wide, 40 px from the top-right corner: its centre is magenta.
  expect(near(out.at(1024 - 40 - 92, 40 + 92), [255, 0, 255], 40)).toBe(true);
  expect(near(out.at(40 + 92, 40 + 92), [0xd6, 0x28, 0x28], 8)).toBe(true);

  // Two gpt-4o-mini calls of 320 + 60 tokens (0.084 credits, 1 each) and the picture:
  // 60 input tokens at 10 000 and 1056 output tokens at 40 000 credits per million, 42.84 → 43.
  const charges = await expectPricedCost(done);
  expect(charges.map((c) => [c.node_id, c.model, c.usage, c.credits])).toEqual([
    ['caption', 'gpt-4o-mini', { input_tokens: 320, output_tokens: 60 }, 1],
    ['picture', 'gpt-image-1', { images: 1, input_tokens: 60, output_tokens: 1056 }, 43],
    ['picture_prompt', 'gpt-4o-mini', { input_tokens: 320, output_tokens: 60 }, 1],
  ]);
  expect(done.cost).toBe(45);
  expect(workerLog.join('\n')).not.toContain(KEY);
});

test('narrated-clip: script, OpenAI voice under the clip, subtitles timed by the transcription', async () => {
  const agentId = await publish('narrated-clip.json');
  // A silent blue clip: the sound of the result can only be the voice-over.
  const video = await uploadAsset(stack.gw, org.apiKey, clip({ color: '0x2040a0', seconds: 3 }), 'clip.mp4');
  const topic = 'the first morning of the Elm Street bakery';
  const runId = await start(agentId, [
    { id: 'topic', value: topic },
    { id: 'clip', value: { asset_ids: [video] } },
  ]);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`, undefined, 100_000);
  expect(done.status).toBe('completed');
  const script = `echo: ${topic}`;
  expect(resultOf(done, 'script')).toBe(script);

  expect(chatsAbout(topic)[0]!.body.messages).toEqual([
    { role: 'system', content: expect.stringContaining('You write voice-overs') },
    { role: 'user', content: topic },
  ]);
  const [spoken] = double.to('/audio/speech').filter((r) => r.body.input === script);
  expect(spoken!.body).toEqual({ model: 'gpt-4o-mini-tts', input: script, voice: 'alloy', response_format: 'mp3' });
  const transcriptions = double.to('/audio/transcriptions');
  expect(transcriptions.at(-1)!.body).toEqual({ model: 'whisper-1', response_format: 'srt' });
  // The speech itself is transcribed: the MP3 the voice node stored, sent as it is.
  expect(transcriptions.at(-1)!.files.file!.name).toBe('speech.mp3');

  const [subtitled] = resultAssets(done, 'subtitled');
  const file = await downloadTo(stack.gw, org.apiKey, subtitled!, media.file('narrated.mp4'));
  const probed = probeFile(file);
  expect(probed.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video']);
  // As long as the shorter of the clip (3 s) and the double's voice-over (1 s).
  expect(probed.duration).toBeGreaterThan(0.8);
  expect(probed.duration).toBeLessThan(1.5);
  // The double's SRT shows its transcript from 0 s: white text in the bottom third, the top third still blue.
  const frame = frameAt(file, 0.5);
  const pixel = (x: number, y: number) => [...frame.subarray((y * 320 + x) * 3, (y * 320 + x) * 3 + 3)];
  const rows = (y0: number, y1: number) =>
    [...Array((y1 - y0) * 320).keys()].map((i) => pixel(i % 320, y0 + Math.floor(i / 320)));
  expect(rows(160, 240).filter((p) => near(p, [255, 255, 255], 60)).length).toBeGreaterThan(150);
  expect(rows(0, 80).every((p) => near(p, [0x20, 0x40, 0xa0], 30))).toBe(true);

  // gpt-4o-mini's tokens, the script's characters at 15 credits per thousand, whisper-1's seconds at 0.1.
  const charges = await expectPricedCost(done);
  expect(charges.map((c) => [c.node_id, c.model])).toEqual([
    ['script', 'gpt-4o-mini'],
    ['timing', 'whisper-1'],
    ['voice', 'gpt-4o-mini-tts'],
  ]);
  expect(charges[2]!.usage).toEqual({ characters: script.length });
  expect(charges[1]!.usage.seconds).toBeGreaterThan(0.9);
  expect(done.cost).toBe(3);
  expect(workerLog.join('\n')).not.toContain(KEY);
});

test('without OPENAI_API_KEY both publish, and a run fails at its first provider node naming the key', async () => {
  const other = await keyless.gw.createOrg('No key', 1000);
  const social = await publish('social-post-from-brief.json', keyless, other.apiKey);
  const narrated = await publish('narrated-clip.json', keyless, other.apiKey);
  const logo = await uploadAsset(
    keyless.gw,
    other.apiKey,
    await sharp({ create: { width: 8, height: 8, channels: 4, background: '#ff00ff' } })
      .png()
      .toBuffer(),
    'logo.png',
  );
  const video = await uploadAsset(keyless.gw, other.apiKey, clip({ color: 'red', seconds: 1 }), 'clip.mp4');
  const before = double.requests.length;
  for (const [agentId, inputs] of [
    [
      social,
      [
        { id: 'brief', value: 'a brief' },
        { id: 'logo', value: { asset_ids: [logo] } },
      ],
    ],
    [
      narrated,
      [
        { id: 'topic', value: 'a topic' },
        { id: 'clip', value: { asset_ids: [video] } },
      ],
    ],
  ] as const) {
    const res = await request(keyless.gw.app)
      .post('/runs')
      .set('X-Api-Key', other.apiKey)
      .send({ agent_id: agentId, inputs });
    expect(res.status).toBe(201);
    const run = await pollRun(keyless.gw, other.apiKey, `/runs/${res.body.id}`, undefined, 60_000);
    expect(run).toMatchObject({ status: 'failed', failure_reason: 'provider_auth_required', cost: 0 });
    expect(String(run.error)).toContain('OPENAI_API_KEY');
  }
  expect(double.requests.length).toBe(before);
});
