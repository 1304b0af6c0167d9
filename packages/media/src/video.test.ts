import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { UnprocessableMediaError } from './image';
import { redactUrls } from './redact';
import { extractCover, extractFrame, MediaSourceError, probeMedia } from './video';

// ffmpeg reads only http(s); this server stands in for the store: it serves
// the files put in `files` (with byte ranges, as S3 does) and answers
// `/status/<code>` and `/reset` the way a failing store would.
const tools = { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', timeoutMs: 20_000 };
const work = mkdtempSync(path.join(tmpdir(), 'weft-video-'));
const files = new Map<string, Buffer>();
const SIGNED = '?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=KEY%2F20250101&X-Amz-Signature=deadbeef';
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [pathname] = (req.url ?? '').split('?');
    if (pathname === '/reset') return req.socket.destroy();
    const status = /^\/status\/(\d+)$/.exec(pathname!);
    if (status) return res.writeHead(Number(status[1])).end('no');
    const body = files.get(pathname!.slice(1));
    if (!body) return res.writeHead(404).end();
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    if (!range) return res.writeHead(200, { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' }).end(body);
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
    res
      .writeHead(206, { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${body.length}` })
      .end(body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

function ffmpeg(args: string[], name: string): string {
  const out = path.join(work, name);
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args, out]);
  files.set(name, readFileSync(out));
  return out;
}

test('cover art is not video: an MP3 with a cover is audio, its picture a stream of its own', async () => {
  const song = ffmpeg(['-f', 'lavfi', '-i', 'sine=duration=2'], 'song.mp3');
  const cover = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:duration=1', '-frames:v', '1'], 'cover.png');
  ffmpeg(['-i', song, '-i', cover, '-map', '0', '-map', '1', '-c', 'copy', '-id3v2_version', '3'], 'covered.mp3');

  const probe = await probeMedia(`${base}/covered.mp3${SIGNED}`, tools);
  expect(probe.videoStream).toBeUndefined();
  expect(probe.coverStream).toBe(1);
  expect(probe.metadata).toMatchObject({ codec: 'mp3', sample_rate: 44100, channels: 1 });
  expect(probe.metadata).not.toHaveProperty('audio_codec');
  expect(probe.metadata).not.toHaveProperty('width');
  expect(probe.duration).toBeCloseTo(2, 0);

  const png = await extractCover(`${base}/covered.mp3${SIGNED}`, probe, tools);
  expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
});

test("a video's still comes from its video track, not from a larger cover picture", async () => {
  const clip = ffmpeg(
    ['-f', 'lavfi', '-i', 'testsrc=duration=3:size=160x120:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p'],
    'clip.mp4',
  );
  const cover = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=640x480:duration=1', '-frames:v', '1'], 'big-cover.png');
  ffmpeg(
    ['-i', clip, '-i', cover, '-map', '0', '-map', '1', '-c', 'copy', '-disposition:v:1', 'attached_pic'],
    'covered.mp4',
  );

  const probe = await probeMedia(`${base}/covered.mp4`, tools);
  expect(probe.videoStream).toBe(0);
  expect(probe.coverStream).toBe(1);
  expect(probe.metadata).toMatchObject({ codec: 'mpeg4', width: 160, height: 120 });
  const png = await extractFrame(`${base}/covered.mp4`, probe, tools);
  expect(await sharp(png).metadata()).toMatchObject({ width: 160, height: 120 });
});

describe('a store that cannot be read is a retryable MediaSourceError, its URL redacted', () => {
  const cases: [string, () => string][] = [
    ['connection refused', () => `http://127.0.0.1:1/bucket/key${SIGNED}`],
    ['HTTP 503', () => `${base}/status/503${SIGNED}`],
    ['HTTP 500', () => `${base}/status/500${SIGNED}`],
    ['HTTP 403 (an expired URL)', () => `${base}/status/403${SIGNED}`],
    ['a connection reset', () => `${base}/reset${SIGNED}`],
  ];
  test.each(cases)('%s', async (_, url) => {
    const err: unknown = await probeMedia(url(), tools).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaSourceError);
    expect(err).not.toBeInstanceOf(UnprocessableMediaError);
    expect((err as Error).message).not.toMatch(/X-Amz|deadbeef/);
    expect((err as Error).message).toMatch(/\?\[redacted\]/);
  });
});

test('content ffmpeg cannot decode is unprocessable', async () => {
  files.set('junk.mp4', Buffer.from('not a video at all, just some text '.repeat(100)));
  const err: unknown = await probeMedia(`${base}/junk.mp4${SIGNED}`, tools).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnprocessableMediaError);
  expect((err as Error).message).toMatch(/Invalid data/);
  expect((err as Error).message).not.toMatch(/deadbeef/);
});

test('redactUrls drops query strings and keeps the rest of the text', () => {
  expect(redactUrls(`ffprobe exit 1: http://s3:9000/b/k${SIGNED}: Connection refused`)).toBe(
    'ffprobe exit 1: http://s3:9000/b/k?[redacted]: Connection refused',
  );
  expect(redactUrls('no url here? fine')).toBe('no url here? fine');
  expect(redactUrls('https://cdn/x.mp4 plain')).toBe('https://cdn/x.mp4 plain');
});
