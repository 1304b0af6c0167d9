import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { uuidv7 } from '@weft/db';
import { ASSET_QUEUE, processAssetJobId } from '@weft/queue';
import { Queue } from 'bullmq';
import sharp from 'sharp';
import request from 'supertest';
import { near, pixelsOf } from '../testing/media/pixels';
import { download, resultAssets, uploadAsset } from '../testing/media/runs';
import { probeFile } from '../testing/media/probe';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';

// The example catalog (catalog/*.json) runs to completion, the review agent included.

const CATALOG = path.resolve(__dirname, '..', '..', '..', '..', 'catalog');
let stack: RunStack;
let org: { id: string; apiKey: string };
const agents = new Map<string, string>();

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Catalog', 100);
  for (const file of fs.readdirSync(CATALOG).filter((f) => f.endsWith('.json'))) {
    const { kind: _kind, apps: _apps, ...agent } = JSON.parse(fs.readFileSync(path.join(CATALOG, file), 'utf8'));
    const res = await request(stack.gw.app).post('/agents').set('X-Api-Key', org.apiKey).send(agent);
    expect(res.status).toBe(201);
    agents.set(file, res.body.id);
  }
});
afterAll(() => stack.close());

const run = (file: string, inputs: object[]) =>
  request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agents.get(file), inputs });

test('line-picker', async () => {
  const res = await run('line-picker.json', [{ id: 'text', value: 'one\ntwo' }]);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`);
  expect(done.results).toEqual([
    expect.objectContaining({ id: 'lines', value: ['one', 'two'] }),
    expect.objectContaining({ id: 'first', value: 'one' }),
  ]);
});

test('post-idea-review: parks, then completes with the approved prompt', async () => {
  const res = await run('post-idea-review.json', [{ id: 'topic', value: 'tea' }]);
  const parked = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`, (r) => r.awaiting_human_review === true);
  const review = (parked.pending_reviews as { id: string; proposed_output: unknown }[])[0]!;
  expect(review.proposed_output).toEqual({ prompts: ['tea / friendly'] });
  await request(stack.gw.app)
    .post(`/runs/${parked.id}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'approve', output: { prompts: ['tea / formal'] } })
    .expect(204);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${parked.id}`);
  expect(done).toMatchObject({ status: 'completed', results: [expect.objectContaining({ value: 'tea / formal' })] });
});

test('square-image: both crops are produced as output assets, each queued for processing at once', async () => {
  const { storage, db } = stack.gw.deps;
  const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: 'red' } })
    .jpeg()
    .toBuffer();
  const id = uuidv7();
  await storage.client.send(new PutObjectCommand({ Bucket: storage.bucket, Key: `test/${id}.jpg`, Body: jpeg }));
  await db.prisma.asset.create({
    data: {
      id,
      organizationId: org.id,
      assetType: 'reference',
      mediaType: 'image',
      mediaExtension: 'jpg',
      contentType: 'image/jpeg',
      storageKey: `test/${id}.jpg`,
    },
  });
  const res = await run('square-image.json', [{ id: 'photo', value: { asset_ids: [id] } }]);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`);
  expect(done.status).toBe('completed');
  const outputs = await db.prisma.asset.findMany({ where: { runId: done.id, assetType: 'output' } });
  expect(outputs.map((a) => a.mediaExtension)).toEqual(['jpg', 'jpg']);
  // Not left to the sweeper (which only looks every ASSET_SWEEP_INTERVAL_MS): the worker that
  // produced each file asked for its thumbnail and metadata as it registered it.
  const assetQueue = new Queue(ASSET_QUEUE, { connection: stack.gw.deps.redis, prefix: stack.gw.config.REDIS_PREFIX });
  try {
    for (const asset of outputs) {
      const job = await assetQueue.getJob(processAssetJobId({ assetId: asset.id }));
      expect(job?.data).toEqual({ assetId: asset.id });
    }
  } finally {
    await assetQueue.close();
  }
});

test('branded-product-image: tinted and titled, reviewed, then the logo goes on', async () => {
  const jpeg = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer();
  // A magenta square logo on a transparent margin.
  const logo = await sharp({
    create: { width: 120, height: 120, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
  })
    .composite([
      { input: { create: { width: 100, height: 100, channels: 4, background: '#ff00ff' } }, top: 10, left: 10 },
    ])
    .png()
    .toBuffer();
  const [photo, mark] = await Promise.all([
    uploadAsset(stack.gw, org.apiKey, jpeg, 'photo.jpg'),
    uploadAsset(stack.gw, org.apiKey, logo, 'logo.png'),
  ]);
  const res = await run('branded-product-image.json', [
    { id: 'photo', value: { asset_ids: [photo] } },
    { id: 'logo', value: { asset_ids: [mark] } },
    { id: 'brand', value: { name: 'Acme', colors: ['#0a3d62', '#f6b93b'] } },
    { id: 'headline', value: 'Fresh from the oven' },
  ]);
  expect(res.status).toBe(201);
  const parked = await pollRun(
    stack.gw,
    org.apiKey,
    `/runs/${res.body.id}`,
    (r) => r.awaiting_human_review === true,
    60_000,
  );
  const review = (parked.pending_reviews as { id: string; proposed_output: { asset_ids: string[] } }[])[0]!;
  const proposed = await pixelsOf((await download(stack.gw, org.apiKey, review.proposed_output.asset_ids[0]!)).bytes);
  expect([proposed.width, proposed.height]).toEqual([1080, 1350]);
  // The headline is drawn in white near the bottom; the photo there is a tinted grey.
  const band = [...Array(200).keys()].map((i) => proposed.at(72 + i * 4, 1150));
  expect(band.some((p) => near(p, [255, 255, 255], 40))).toBe(true);
  // No logo before the review.
  expect(near(proposed.at(1080 - 48 - 60, 48 + 60), [255, 0, 255], 40)).toBe(false);

  await request(stack.gw.app)
    .post(`/runs/${parked.id}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'approve', output: review.proposed_output })
    .expect(204);
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${parked.id}`, undefined, 60_000);
  const [branded] = resultAssets(done, 'branded');
  const out = await pixelsOf((await download(stack.gw, org.apiKey, branded!)).bytes);
  expect([out.width, out.height]).toEqual([1080, 1350]);
  // scale 0.18 of 1080 = 194 px wide, 48 px from the top-right corner: its centre is magenta.
  expect(near(out.at(1080 - 48 - 97, 48 + 97), [255, 0, 255], 40)).toBe(true);
  expect(near(out.at(48 + 97, 48 + 97), [255, 0, 255], 40)).toBe(false);
});

test('vertical-cutdown: 15 s of a 16:9 video as a 9:16 clip with subtitles and a soundtrack', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-cutdown-'));
  try {
    const make = (name: string, args: string[]) => {
      const file = path.join(dir, name);
      execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args, file]);
      return fs.readFileSync(file);
    };
    // A few frames a second keep the encoding cheap; the flow is about sizes and tracks.
    const source = make('source.mp4', [
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=1920x1080:rate=4:duration=20',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
    ]);
    const music = make('music.mp3', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4']);
    const [video, soundtrack] = await Promise.all([
      uploadAsset(stack.gw, org.apiKey, source, 'source.mp4'),
      uploadAsset(stack.gw, org.apiKey, music, 'music.mp3'),
    ]);
    const res = await run('vertical-cutdown.json', [
      { id: 'video', value: { asset_ids: [video] } },
      { id: 'subtitles', value: '1\n00:00:00,000 --> 00:00:10,000\nHello there\n' },
      { id: 'music', value: { asset_ids: [soundtrack] } },
    ]);
    expect(res.status).toBe(201);
    const done = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`, undefined, 180_000);
    const [clip] = resultAssets(done, 'scored');
    const file = path.join(dir, 'clip.mp4');
    fs.writeFileSync(file, (await download(stack.gw, org.apiKey, clip!)).bytes);
    const probed = probeFile(file);
    const picture = probed.streams.find((s) => s.codec_type === 'video');
    expect([picture?.width, picture?.height]).toEqual([1080, 1920]);
    expect(probed.streams.some((s) => s.codec_type === 'audio')).toBe(true);
    expect(Math.abs(probed.duration - 15)).toBeLessThan(0.3);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 200_000);
