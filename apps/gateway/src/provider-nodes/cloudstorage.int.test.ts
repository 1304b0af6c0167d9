import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Flow } from '@weft/contracts';
import { CredentialStore, newKeyEntry, parseKeyring } from '@weft/credentials';
import { createNodeRoutes } from '@weft/providers';
import request from 'supertest';
import { solid } from '../testing/media/generate';
import { download, failureOf, resultAssets, resultOf, runFlow, uploadAsset, type Org } from '../testing/media/runs';
import { startRunStack, type RunStack } from '../testing/test-runs';

// The cloud storage nodes against an organization's own bucket: a bucket of
// the S3-compatible server the tests run (not the deployment's own bucket),
// reached with the credential the organization stored.

const KEY = newKeyEntry(1);
let stack: RunStack;
let org: Org;
let other: Org;
let s3: S3Client;
let credentialId: string;
const BUCKET = `org-bucket-${Date.now().toString(36)}`;

beforeAll(async () => {
  stack = await startRunStack({ CREDENTIALS_KEY: KEY, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' }, false);
  const organizations = new CredentialStore(stack.gw.deps.db.pool, parseKeyring(KEY));
  await stack.startWorker({
    nodeRoutes: createNodeRoutes(
      { OUTBOUND_ALLOWED_HOSTS: ['127.0.0.1'] },
      { organizations, outboundAllowList: ['127.0.0.1'] },
    ),
  });
  const c = stack.gw.config;
  s3 = new S3Client({
    region: c.S3_REGION,
    endpoint: c.S3_ENDPOINT!,
    forcePathStyle: true,
    credentials: { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY },
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  [org, other] = await Promise.all([stack.gw.createOrg('Bucket owner', 1000), stack.gw.createOrg('Other', 1000)]);
  const res = await request(stack.gw.app)
    .post('/credentials')
    .set('X-Api-Key', org.apiKey)
    .send(credentialBody(c.S3_SECRET_ACCESS_KEY));
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  credentialId = res.body.id;
});
afterAll(async () => {
  s3?.destroy();
  await stack?.close();
});

function credentialBody(secret: string, bucket = BUCKET) {
  const c = stack.gw.config;
  return {
    provider: 's3',
    secret,
    settings: {
      bucket,
      access_key_id: c.S3_ACCESS_KEY_ID,
      region: c.S3_REGION,
      endpoint: c.S3_ENDPOINT,
      force_path_style: true,
    },
  };
}

const uploadFlow = (id: string): Flow => ({
  nodes: [
    { id: 'files', type: 'image_input' },
    {
      id: 'save',
      type: 'cloudstorage_upload_file',
      params: { credential_id: id, path: 'exports/' },
      inputs: { assets: 'files' },
    },
  ],
  outputs: [{ id: 'save', type: 'data', description: 'The keys written' }],
});

test('cloudstorage_upload_file writes the assets to the organization’s bucket; find_file brings them back', async () => {
  const png = await solid(9, 9, '#ff8800');
  const asset = await uploadAsset(stack.gw, org.apiKey, png, 'logo.png');
  const run = await runFlow(stack.gw, org.apiKey, uploadFlow(credentialId), [
    { id: 'files', value: { asset_ids: [asset] } },
  ]);
  expect(resultOf(run, 'save')).toEqual({ bucket: BUCKET, keys: ['exports/logo.png'] });
  const stored = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'exports/logo.png' }));
  expect(Buffer.from(await stored.Body!.transformToByteArray())).toEqual(png);

  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'exports/notes.txt', Body: 'hello from the bucket' }));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'elsewhere/skip.txt', Body: 'not under the prefix' }));
  const find: Flow = {
    nodes: [
      { id: 'find', type: 'cloudstorage_find_file', params: { credential_id: credentialId, prefix: 'exports/' } },
    ],
    outputs: [{ id: 'find', type: 'files', description: 'The files found' }],
  };
  const found = await runFlow(stack.gw, org.apiKey, find, []);
  const ids = resultAssets(found, 'find');
  expect(ids).toHaveLength(2);
  const files = await Promise.all(ids.map((id) => download(stack.gw, org.apiKey, id)));
  expect(files.map((f) => f.bytes)).toEqual([png, Buffer.from('hello from the bucket')]);
  expect(files.map((f) => f.headers['content-disposition'])).toEqual([
    expect.stringContaining('logo.png'),
    expect.stringContaining('notes.txt'),
  ]);
});

test('another organization cannot use the credential: the node fails as if it did not exist', async () => {
  const asset = await uploadAsset(stack.gw, other.apiKey, await solid(4, 4, '#000000'), 'x.png');
  const run = await runFlow(stack.gw, other.apiKey, uploadFlow(credentialId), [
    { id: 'files', value: { asset_ids: [asset] } },
  ]);
  expect(failureOf(run)).toEqual({
    reason: 'invalid_input',
    error: `Node 'save' (cloudstorage_upload_file): params.credential_id: the organization has no credential ${credentialId}`,
  });
});

// The test S3 server (s3rver) does not check signatures, so a wrong secret is not tested here.
test('a bucket that does not exist is refused when the credential is stored', async () => {
  const missing = await request(stack.gw.app)
    .post('/credentials')
    .set('X-Api-Key', org.apiKey)
    .send(credentialBody(stack.gw.config.S3_SECRET_ACCESS_KEY, 'no-such-bucket-here'));
  expect(missing.status).toBe(422);
  expect(missing.body.detail[0].msg).toBe('s3 did not accept the credential check (HTTP 404)');
});

test('GET /node-types shows the organization’s own route, and what another organization is missing', async () => {
  const own = await request(stack.gw.app).get('/node-types/cloudstorage_upload_file').set('X-Api-Key', org.apiKey);
  expect(own.body).toMatchObject({ route: { provider: 's3', model: 's3' }, route_missing: null });
  const others = await request(stack.gw.app).get('/node-types').set('X-Api-Key', other.apiKey);
  const theirs = (others.body.data as { type: string }[]).find((t) => t.type === 'cloudstorage_upload_file');
  expect(theirs).toMatchObject({ route: null, route_missing: expect.stringContaining('POST /credentials') });
});
