import { PutObjectCommand } from '@aws-sdk/client-s3';
import { AppRunSchema } from '@weft/contracts';
import { uuidv7 } from '@weft/db';
import { jpegDeclaring } from '@weft/testing';
import sharp from 'sharp';
import request from 'supertest';
import { postAgent, reviewFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';

// App runs: 201, the input rules of docs/api.md#run-inputs as 400, curated results, cancel;
// and media produced by a run (change_aspect_ratio) registered as assets.

let stack: RunStack;
let org: { id: string; apiKey: string };
let appId: string;

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Apps', 100);
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: reviewFlow() });
  const app = await request(stack.gw.app)
    .post('/apps')
    .set('X-Api-Key', org.apiKey)
    .send({
      name: 'Post idea',
      description: 'd',
      agent_id: agent.id,
      inputs: [
        { id: 'topic', type: 'text', name: 'Topic', required: true },
        { id: 'tone', type: 'text', name: 'Tone', required: false, options: ['friendly', 'formal'], max_selections: 1 },
      ],
      outputs: [{ id: 'check', type: 'text', description: 'The approved idea' }],
    });
  appId = app.body.id;
});
afterAll(() => stack.close());

const post = (body: object) => request(stack.gw.app).post('/app-runs/').set('X-Api-Key', org.apiKey).send(body);

test.each([
  [
    'an unknown input id',
    [
      { id: 'topic', value: 'x' },
      { id: 'join', value: 'y' },
    ],
    /Unknown input 'join'/,
  ],
  ['a missing required input', [{ id: 'tone', value: 'formal' }], /'topic' is required/],
  [
    'a value outside the options',
    [
      { id: 'topic', value: 'x' },
      { id: 'tone', value: 'angry' },
    ],
    /options/,
  ],
  [
    'too many selections',
    [
      { id: 'topic', value: 'x' },
      { id: 'tone', value: ['formal', 'friendly'] },
    ],
    /at most 1/,
  ],
  ['a malformed value', [{ id: 'topic', value: { asset_ids: [] } }], /must be a string/],
])('%s is a 400 that claims nothing', async (_name, inputs, message) => {
  const res = await post({ app_id: appId, inputs, external_id: 'app-claim' });
  expect(res.status).toBe(400);
  expect(res.body.detail).toMatch(message);
});

test('POST /app-runs → 201; results hold only the curated outputs; cancel → 204 then 409', async () => {
  const res = await post({ app_id: appId, inputs: [{ id: 'topic', value: 'tea' }], external_id: 'app-claim' });
  expect(res.status).toBe(201);
  const created = expectSchema(AppRunSchema, res.body);
  expect(created).toMatchObject({ app_id: appId, external_id: 'app-claim', status: 'in_progress' });

  const parked = await pollRun(
    stack.gw,
    org.apiKey,
    `/app-runs/${created.id}`,
    (r) => r.awaiting_human_review === true,
  );
  const review = (parked.pending_reviews as { id: string }[])[0]!;
  const approve = await request(stack.gw.app)
    .post(`/runs/${created.id}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'approve', output: { prompts: ['tea time'] } });
  expect(approve.status).toBe(204);
  const done = expectSchema(AppRunSchema, await pollRun(stack.gw, org.apiKey, `/app-runs/${created.id}`));
  expect(done.results).toEqual([{ id: 'check', type: 'text', value: 'tea time', description: 'The approved idea' }]);

  expect((await request(stack.gw.app).delete(`/app-runs/${created.id}`).set('X-Api-Key', org.apiKey)).status).toBe(409);
  const list = await request(stack.gw.app).get('/app-runs/?external_id=app-claim').set('X-Api-Key', org.apiKey);
  expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([created.id]);
  expect((await request(stack.gw.app).get(`/runs/${created.id}`).set('X-Api-Key', org.apiKey)).status).toBe(404);

  const second = await post({ app_id: appId, inputs: [{ id: 'topic', value: 'x' }] });
  await pollRun(stack.gw, org.apiKey, `/app-runs/${second.body.id}`, (r) => r.awaiting_human_review === true);
  expect((await request(stack.gw.app).delete(`/app-runs/${second.body.id}`).set('X-Api-Key', org.apiKey)).status).toBe(
    204,
  );
  const canceled = await pollRun(stack.gw, org.apiKey, `/app-runs/${second.body.id}`);
  expect(canceled.status).toBe('canceled');
});

test('unknown app → 404', async () => {
  expect((await post({ app_id: '00000000-0000-4000-8000-000000000000', inputs: [] })).status).toBe(404);
});

/** An image asset of `org`, stored as a run input would be. */
async function storeImage(bytes: Buffer, extension: 'png' | 'jpg', contentType: string): Promise<string> {
  const { storage, db } = stack.gw.deps;
  const assetId = uuidv7();
  const key = `test/${assetId}.${extension}`;
  await storage.client.send(new PutObjectCommand({ Bucket: storage.bucket, Key: key, Body: bytes }));
  await db.prisma.asset.create({
    data: {
      id: assetId,
      organizationId: org.id,
      assetType: 'reference',
      mediaType: 'image',
      mediaExtension: extension,
      contentType,
      storageKey: key,
      sizeBytes: bytes.length,
    },
  });
  return assetId;
}

test('change_aspect_ratio crops an input image into an output asset of the run, once', async () => {
  const { db } = stack.gw.deps;
  const png = await sharp({ create: { width: 400, height: 200, channels: 3, background: 'blue' } })
    .png()
    .toBuffer();
  const assetId = await storeImage(png, 'png', 'image/png');
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: {
      nodes: [
        { id: 'photo', type: 'image_input' },
        { id: 'square', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
        { id: 'story', type: 'change_aspect_ratio', params: { aspect_ratio: '9:16' }, inputs: { image: 'photo' } },
      ],
      outputs: [{ id: 'square', type: 'images', description: '' }],
    },
  });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'photo', value: { asset_ids: [assetId] } }] });
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`);
  expect(done.status).toBe('completed');
  const [square] = (done.results as { value: string[] }[])[0]!.value;
  const produced = await db.prisma.asset.findMany({ where: { runId: res.body.id }, orderBy: { assetType: 'asc' } });
  expect(produced.map((a) => [a.assetType, a.agentId, a.mediaType])).toEqual([
    ['intermediate', agent.id, 'image'],
    ['output', agent.id, 'image'],
  ]);
  const out = produced.find((a) => a.id === square)!;
  expect(out.assetMetadata).toMatchObject({ width: 200, height: 200, aspect_ratio: '1:1' });

  // Executing the same attempt again (a redelivered job) registers nothing new.
  const node = await db.prisma.nodeExecution.findFirstOrThrow({ where: { runId: res.body.id, nodeId: 'square' } });
  await db.prisma.nodeExecution.update({ where: { id: node.id }, data: { status: 'running' } });
  await db.prisma.run.update({ where: { id: res.body.id }, data: { status: 'in_progress' } });
  const [worker] = [await stack.startWorker()];
  await worker.engine.executeNode({ runId: res.body.id, nodeId: 'square', attempt: node.attempt });
  expect(await db.prisma.asset.count({ where: { runId: res.body.id } })).toBe(2);
});

test('change_aspect_ratio refuses an image over ASSET_MAX_IMAGE_PIXELS before decoding it', async () => {
  // 1 KiB of file declaring 16000×16000 (256 million pixels), turned a quarter by its EXIF orientation.
  const assetId = await storeImage(await jpegDeclaring(16000, 16000, 6), 'jpg', 'image/jpeg');
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: {
      nodes: [
        { id: 'photo', type: 'image_input' },
        { id: 'square', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
      ],
      outputs: [{ id: 'square', type: 'images', description: '' }],
    },
  });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'photo', value: { asset_ids: [assetId] } }] });
  const done = await pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  expect(done.error).toBe(
    `Node 'square': the image at input 'image' (asset ${assetId}) is 16000×16000 (256000000 pixels), ` +
      'over the limit of 100000000 pixels',
  );
  expect(await stack.gw.deps.db.prisma.asset.count({ where: { runId: res.body.id } })).toBe(0);
});
