import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { createDb, type Db } from '@weft/db';
import { ASSET_JOBS, ASSET_QUEUE, PROCESS_ASSET_JOB_OPTIONS, processAssetJobId } from '@weft/queue';
import { assetKeys, createStorage, openObject, putObject, type Storage } from '@weft/storage';
import { createTestEnv, waitFor, type TestEnv } from '@weft/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { PDFDocument } from 'pdf-lib';
import pino from 'pino';
import sharp from 'sharp';
import { startAssetWorker, type AssetWorker } from '../compose';

// ffmpeg makes the fixtures and then probes and decodes them in the worker:
// each test is a few seconds alone and took up to 16 s with every core busy.
jest.setTimeout(120_000);

let env: TestEnv;
let db: Db;
let storage: Storage;
let redis: Redis;
let queue: Queue;
let worker: AssetWorker;
let orgId: string;
const work = mkdtempSync(path.join(tmpdir(), 'weft-asset-worker-'));

beforeAll(async () => {
  env = await createTestEnv();
  db = createDb({ databaseUrl: env.databaseUrl, poolSize: 4 });
  storage = createStorage(env.s3);
  redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
  queue = new Queue(ASSET_QUEUE, { connection: redis, prefix: env.redisPrefix });
  orgId = (await db.prisma.organization.create({ data: { name: 'assets' } })).id;
  worker = await startAssetWorker({
    db,
    storage,
    redis: env.redisUrl,
    redisPrefix: env.redisPrefix,
    logger: pino({ level: 'silent' }),
    concurrency: 2,
    maxPixels: 50_000_000,
    maxImageBytes: 20 * 1024 * 1024,
    ffmpeg: { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', timeoutMs: 30_000 },
    sweepIntervalMs: 300,
    sweepStaleMs: 60_000,
  });
});
afterAll(async () => {
  await worker?.close();
  await queue?.close();
  redis?.disconnect();
  storage?.close();
  await db?.close();
  await env?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

interface NewAsset {
  bytes?: Buffer;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  extension: string;
  contentType: string;
  createdAt?: Date;
}

/** A row and (unless `bytes` is omitted) its object, as an upload leaves them. */
async function createAsset(spec: NewAsset): Promise<string> {
  const row = await db.prisma.asset.create({
    data: {
      organizationId: orgId,
      assetType: 'reference',
      mediaType: spec.mediaType,
      mediaExtension: spec.extension,
      contentType: spec.contentType,
      sizeBytes: BigInt(spec.bytes?.length ?? 0),
      storageKey: 'pending',
      ...(spec.createdAt ? { createdAt: spec.createdAt } : {}),
    },
  });
  const key = assetKeys.original(orgId, row.id);
  await db.prisma.asset.update({ where: { id: row.id }, data: { storageKey: key } });
  if (spec.bytes) await putObject(storage, key, spec.bytes, spec.contentType);
  return row.id;
}

function enqueue(assetId: string) {
  return queue.add(
    ASSET_JOBS.process,
    { assetId },
    { ...PROCESS_ASSET_JOB_OPTIONS, jobId: processAssetJobId({ assetId }) },
  );
}

function settled(assetId: string, timeoutMs = 60_000) {
  return waitFor(
    `asset ${assetId} processed`,
    async () => {
      const row = await db.prisma.asset.findUniqueOrThrow({ where: { id: assetId } });
      return row.processingStatus !== 'pending' ? row : undefined;
    },
    { timeoutMs },
  );
}

async function readAll(key: string): Promise<Buffer> {
  const { body } = await openObject(storage, key);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function ffmpeg(args: string[], out: string): Buffer {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args, out]);
  return readFileSync(out);
}

test('an image gets a WebP preview, its metadata and a blur hash', async () => {
  const png = await sharp({ create: { width: 1280, height: 960, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const id = await createAsset({ bytes: png, mediaType: 'image', extension: 'png', contentType: 'image/png' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
  expect(row.processingError).toBeNull();
  expect(row.assetMetadata).toMatchObject({
    width: 1280,
    height: 960,
    aspect_ratio: '4:3',
    format: 'png',
    size_bytes: png.length,
  });
  expect(row.blurHash).toMatch(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{28}$/);
  expect(row.previewKey).toBe(assetKeys.preview(orgId, id));
  const preview = await sharp(await readAll(row.previewKey!)).metadata();
  expect(preview).toMatchObject({ format: 'webp', width: 512, height: 384 });
});

test('a phone photo (HEVC-coded HEIC, which prebuilt sharp cannot decode) gets a preview too', async () => {
  const heic = readFileSync(path.join(__dirname, '../../../../packages/media/fixtures/hevc-120x80.heic'));
  const id = await createAsset({ bytes: heic, mediaType: 'image', extension: 'heic', contentType: 'image/heic' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
  expect(row.assetMetadata).toMatchObject({ width: 120, height: 80, aspect_ratio: '3:2', format: 'heif' });
  expect(row.blurHash).not.toBeNull();
  const preview = await sharp(await readAll(row.previewKey!)).metadata();
  expect(preview).toMatchObject({ format: 'webp', width: 120, height: 80 });
});

test('a video gets a still from ffmpeg and its duration, codec and size', async () => {
  const mp4 = ffmpeg(
    ['-f', 'lavfi', '-i', 'testsrc=duration=3:size=320x240:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p'],
    path.join(work, 'clip.mp4'),
  );
  const id = await createAsset({ bytes: mp4, mediaType: 'video', extension: 'mp4', contentType: 'video/mp4' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingError).toBeNull();
  expect(row.processingStatus).toBe('succeeded');
  expect(row.assetMetadata).toMatchObject({
    width: 320,
    height: 240,
    codec: 'mpeg4',
    aspect_ratio: '4:3',
    frame_rate: 10,
  });
  expect((row.assetMetadata as { duration: number }).duration).toBeCloseTo(3, 0);
  const still = await sharp(await readAll(row.previewKey!)).metadata();
  expect(still).toMatchObject({ format: 'webp', width: 320, height: 240 });
});

test('audio gets its duration, codec, sample rate and channels', async () => {
  const wav = ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1.5', '-ac', '2'], path.join(work, 'tone.wav'));
  const id = await createAsset({ bytes: wav, mediaType: 'audio', extension: 'wav', contentType: 'audio/wav' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
  expect(row.assetMetadata).toMatchObject({ codec: 'pcm_s16le', sample_rate: 44100, channels: 2, duration: 1.5 });
  expect(row.previewKey).toBeNull();
});

test('a song with cover art is audio: its audio metadata, and the cover as preview', async () => {
  const song = path.join(work, 'song.mp3');
  ffmpeg(['-f', 'lavfi', '-i', 'sine=duration=2'], song);
  const cover = path.join(work, 'cover.png');
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:duration=1', '-frames:v', '1'], cover);
  const mp3 = ffmpeg(
    ['-i', song, '-i', cover, '-map', '0', '-map', '1', '-c', 'copy', '-id3v2_version', '3'],
    path.join(work, 'covered.mp3'),
  );
  const id = await createAsset({ bytes: mp3, mediaType: 'audio', extension: 'mp3', contentType: 'audio/mpeg' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingError).toBeNull();
  expect(row.processingStatus).toBe('succeeded');
  expect(row.assetMetadata).toMatchObject({ codec: 'mp3', sample_rate: 44100, channels: 1, size_bytes: mp3.length });
  expect(row.assetMetadata).not.toHaveProperty('audio_codec');
  expect(row.assetMetadata).not.toHaveProperty('width');
  expect((row.assetMetadata as { duration: number }).duration).toBeCloseTo(2, 0);
  const preview = await sharp(await readAll(row.previewKey!)).metadata();
  expect(preview).toMatchObject({ format: 'webp', width: 64, height: 48 });
});

test('a decompression bomb fails at once, recorded, without retries; the file stays', async () => {
  const bomb = pngHeaderOnly(100_000, 100_000);
  const id = await createAsset({ bytes: bomb, mediaType: 'image', extension: 'png', contentType: 'image/png' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('failed');
  expect(row.processingError).toMatch(/pixel limit/i);
  expect(row.processingAttempts).toBe(1);
  expect(row.previewKey).toBeNull();
  expect(row.deletedAt).toBeNull();
  expect((await readAll(row.storageKey)).length).toBe(bomb.length);
});

test('a transient failure is recorded and retried until it succeeds', async () => {
  const png = await sharp({ create: { width: 40, height: 30, channels: 4, background: '#ff000080' } })
    .png()
    .toBuffer();
  // The row exists before its object: reads fail until the object arrives.
  const id = await createAsset({ mediaType: 'image', extension: 'png', contentType: 'image/png' });
  await enqueue(id);
  const failedOnce = await waitFor('a recorded failure', async () => {
    const row = await db.prisma.asset.findUniqueOrThrow({ where: { id } });
    return row.processingError ? row : undefined;
  });
  expect(failedOnce.processingStatus).toBe('pending');
  await putObject(storage, assetKeys.original(orgId, id), png, 'image/png');
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
  expect(row.processingError).toBeNull();
  expect(row.processingAttempts).toBeGreaterThanOrEqual(2);
  expect(row.assetMetadata).toMatchObject({ width: 40, height: 30, has_alpha: true });
});

test('types without a preview are processed with their size only', async () => {
  const csv = Buffer.from('a,b\n1,2\n');
  const id = await createAsset({ bytes: csv, mediaType: 'file', extension: 'csv', contentType: 'text/csv' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
  expect(row.assetMetadata).toEqual({ size_bytes: csv.length });
});

test('a PDF gets its page count', async () => {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 3; i++) doc.addPage();
  const pdf = Buffer.from(await doc.save());
  const id = await createAsset({ bytes: pdf, mediaType: 'file', extension: 'pdf', contentType: 'application/pdf' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
  expect(row.assetMetadata).toEqual({ size_bytes: pdf.length, page_count: 3 });
});

test('an unreadable PDF: processing fails at once, recorded, and the asset keeps its size', async () => {
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
  const id = await createAsset({ bytes: pdf, mediaType: 'file', extension: 'pdf', contentType: 'application/pdf' });
  await enqueue(id);
  const row = await settled(id);
  expect(row.processingStatus).toBe('failed');
  expect(row.processingError).toMatch(/Unreadable PDF/);
  expect(row.processingAttempts).toBe(1);
  expect(row.assetMetadata).toEqual({ size_bytes: pdf.length });
});

test('the sweeper enqueues assets whose job was never added', async () => {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
    .png()
    .toBuffer();
  const id = await createAsset({
    bytes: png,
    mediaType: 'image',
    extension: 'png',
    contentType: 'image/png',
    createdAt: new Date(Date.now() - 5 * 60_000),
  });
  const row = await settled(id);
  expect(row.processingStatus).toBe('succeeded');
});

/** A PNG that declares width × height pixels and carries one tiny compressed row: a decompression bomb's header. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlibCrc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function zlibCrc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
