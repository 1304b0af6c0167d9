import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '@weft/db';
import { UnprocessableMediaError } from '@weft/media';
import {
  assetKeys,
  createStorage,
  createUrlSigner,
  isStorageUnavailable,
  putObject,
  type Storage,
} from '@weft/storage';
import { createTestEnv, type TestEnv } from '@weft/testing';
import sharp from 'sharp';
import { processAsset, type AssetProcessingDeps } from './process-asset';

// processAsset called directly, one attempt at a time, with the store or the
// limits made to fail: what each failure leaves on the row, and whether the
// error it throws is one the worker retries (anything but UnprocessableMediaError).

// Each test runs ffmpeg to make its fixture, and most run it again to process
// it: seconds alone, far longer with every core busy.
jest.setTimeout(90_000);

let env: TestEnv;
let db: Db;
let storage: Storage;
let deps: AssetProcessingDeps;
let orgId: string;
const work = mkdtempSync(path.join(tmpdir(), 'weft-process-asset-'));
const SIGNATURE = 'X-Amz-Signature=0123456789abcdef';

beforeAll(async () => {
  env = await createTestEnv();
  db = createDb({ databaseUrl: env.databaseUrl, poolSize: 2 });
  storage = createStorage(env.s3);
  orgId = (await db.prisma.organization.create({ data: { name: 'process-asset' } })).id;
  deps = {
    db,
    storage,
    urls: createUrlSigner(storage, { ttlSeconds: 900 }),
    ffmpeg: { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', timeoutMs: 20_000 },
    maxPixels: 50_000_000,
    maxImageBytes: 20 * 1024 * 1024,
  };
});
afterAll(async () => {
  storage?.close();
  await db?.close();
  await env?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

async function createAsset(bytes: Buffer, mediaType: 'image' | 'video', extension: string, contentType: string) {
  const row = await db.prisma.asset.create({
    data: {
      organizationId: orgId,
      assetType: 'reference',
      mediaType,
      mediaExtension: extension,
      contentType,
      sizeBytes: BigInt(bytes.length),
      storageKey: 'pending',
    },
  });
  const key = assetKeys.original(orgId, row.id);
  await db.prisma.asset.update({ where: { id: row.id }, data: { storageKey: key } });
  await putObject(storage, key, bytes, contentType);
  return row.id;
}

function video(): Buffer {
  const out = path.join(work, 'clip.mp4');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    ...['-f', 'lavfi', '-i', 'testsrc=duration=3:size=320x240:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p'],
    out,
  ]);
  return readFileSync(out);
}

const row = (id: string) => db.prisma.asset.findUniqueOrThrow({ where: { id } });
const attempt = (id: string, final: boolean, overrides: Partial<AssetProcessingDeps> = {}) =>
  processAsset({ ...deps, ...overrides }, id, { final }).then(
    () => undefined,
    (err: unknown) => err,
  );

test('ffmpeg unable to reach the store: retried, the presigned URL never recorded', async () => {
  const id = await createAsset(video(), 'video', 'mp4', 'video/mp4');
  // The store answers (the check before ffmpeg passes), but ffmpeg's URL leads nowhere.
  const urls = { urlFor: async (key: string) => `http://127.0.0.1:1/bucket/${key}?${SIGNATURE}` };

  const err = await attempt(id, false, { urls });
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(UnprocessableMediaError);
  const pending = await row(id);
  expect(pending.processingStatus).toBe('pending');
  expect(pending.processingError).toMatch(/Connection refused/);
  expect(pending.processingError).not.toMatch(/X-Amz|0123456789abcdef/);

  await attempt(id, true, { urls });
  const failed = await row(id);
  expect(failed.processingStatus).toBe('failed');
  expect(failed.processingAttempts).toBe(2);
  expect(failed.processingError).not.toMatch(/X-Amz|0123456789abcdef/);

  // The store back: the next attempt (a sweep, a retried job) succeeds.
  await db.prisma.asset.update({ where: { id }, data: { processingStatus: 'pending' } });
  expect(await attempt(id, false)).toBeUndefined();
  expect((await row(id)).processingStatus).toBe('succeeded');
});

test('a store that cannot be reached before ffmpeg starts: retried', async () => {
  const id = await createAsset(video(), 'video', 'mp4', 'video/mp4');
  const down = createStorage({ ...env.s3, endpoint: 'http://127.0.0.1:1' });
  try {
    const err = await attempt(id, false, { storage: down, urls: createUrlSigner(down, { ttlSeconds: 900 }) });
    expect(isStorageUnavailable(err)).toBe(true);
    expect(err).not.toBeInstanceOf(UnprocessableMediaError);
    expect((await row(id)).processingStatus).toBe('pending');
  } finally {
    down.close();
  }
});

test("a video whose still fails keeps the probe's metadata", async () => {
  const id = await createAsset(video(), 'video', 'mp4', 'video/mp4');
  // 320×240 is over this pixel limit: the probe succeeds, the preview cannot.
  const err = await attempt(id, false, { maxPixels: 1000 });
  expect(err).toBeInstanceOf(UnprocessableMediaError);
  const failed = await row(id);
  expect(failed.processingStatus).toBe('failed');
  expect(failed.previewKey).toBeNull();
  expect(failed.assetMetadata).toMatchObject({ codec: 'mpeg4', width: 320, height: 240, frame_rate: 10 });
  expect((failed.assetMetadata as { duration: number }).duration).toBeCloseTo(3, 0);
});

test('an image over the byte limit fails at once, with a message that says so', async () => {
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  const id = await createAsset(png, 'image', 'png', 'image/png');
  const err = await attempt(id, false, { maxImageBytes: 100 });
  expect(err).toBeInstanceOf(UnprocessableMediaError);
  const failed = await row(id);
  expect(failed.processingStatus).toBe('failed');
  expect(failed.processingAttempts).toBe(1);
  expect(failed.processingError).toBe(
    `The image has ${png.length} bytes, more than the 100 read for processing (ASSET_MAX_IMAGE_BYTES)`,
  );
  expect(failed.assetMetadata).toEqual({ size_bytes: png.length });
});

test('an empty video fails at once rather than being retried', async () => {
  // S3 answers the check's range with 416 (InvalidRange); s3rver with a broken 206, so here ffprobe decides.
  const id = await createAsset(Buffer.alloc(0), 'video', 'mp4', 'video/mp4');
  const err = await attempt(id, false);
  expect(err).toBeInstanceOf(UnprocessableMediaError);
  expect((await row(id)).processingStatus).toBe('failed');
});
