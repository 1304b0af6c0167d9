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
// `/status/<code>` and `/reset` the way a failing store would. A file in
// `drops` has its connection lost mid-body, `at` bytes into the file, on
// its next `times` requests.
const tools = { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', timeoutMs: 20_000 };
const work = mkdtempSync(path.join(tmpdir(), 'weft-video-'));
const files = new Map<string, Buffer>();
const drops = new Map<string, { at: number; how: 'closed' | 'reset'; times: number }>();
/** `<name> <Range header>` of each request for a file, in order. */
const requests: string[] = [];
const SIGNED = '?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=KEY%2F20250101&X-Amz-Signature=deadbeef';
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [pathname] = (req.url ?? '').split('?');
    if (pathname === '/reset') return req.socket.destroy();
    const status = /^\/status\/(\d+)$/.exec(pathname!);
    if (status) return res.writeHead(Number(status[1])).end('no');
    const name = pathname!.slice(1);
    const body = files.get(name);
    if (!body) return res.writeHead(404).end();
    requests.push(`${name} ${req.headers.range ?? ''}`);
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
    const headers = range
      ? { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${body.length}` }
      : { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' };
    const drop = drops.get(name);
    if (drop && drop.times-- > 0) {
      // The headers promise the whole range; the connection ends short of it.
      const head = [
        `HTTP/1.1 ${range ? '206 Partial Content' : '200 OK'}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      const part = body.subarray(start, Math.max(start, drop.at));
      const socket = req.socket;
      return void socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), part]), () =>
        drop.how === 'reset' ? socket.resetAndDestroy() : socket.destroy(),
      );
    }
    res.writeHead(range ? 206 : 200, headers).end(body.subarray(start, end + 1));
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

const TONE_OGG = ['-f', 'lavfi', '-i', 'sine=duration=3', '-c:a', 'libvorbis'];
const CLIP_MP4 = [
  '-f',
  'lavfi',
  '-i',
  'testsrc=duration=3:size=160x120:rate=10',
  '-c:v',
  'mpeg4',
  '-pix_fmt',
  'yuv420p',
];

describe('a file that is itself cut short, served whole, is unprocessable (not retried)', () => {
  // Demuxers end these with the words a connection lost mid-body also ends
  // with: only ffmpeg's http layer, which counts the bytes, tells them apart.
  const cases: [string, number, string[]][] = [
    ['tone.ogg', 4000, TONE_OGG],
    ['tone.flac', 4000, ['-f', 'lavfi', '-i', 'sine=duration=3', '-c:a', 'flac']],
    ['clip.webm', 200, ['-f', 'lavfi', '-i', 'testsrc=duration=3:size=160x120:rate=10', '-c:v', 'libvpx']],
  ];
  test.each(cases)('%s, its first %i bytes', async (name, bytes, args) => {
    ffmpeg(args, name);
    files.set(`cut-${name}`, files.get(name)!.subarray(0, bytes));
    const err: unknown = await probeMedia(`${base}/cut-${name}${SIGNED}`, tools).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnprocessableMediaError);
    expect((err as Error).message).toMatch(/: (End of file|Input\/output error)$/);
  });
});

describe('a connection lost once mid-body is resumed where it stopped', () => {
  test.each(['closed', 'reset'] as const)('%s', async (how) => {
    ffmpeg(CLIP_MP4, 'resumed.mp4'); // its index (moov) at the end, past the drop
    drops.set('resumed.mp4', { at: 2000, how, times: 1 });
    requests.length = 0;
    const probe = await probeMedia(`${base}/resumed.mp4${SIGNED}`, tools);
    expect(probe.metadata).toMatchObject({ codec: 'mpeg4', width: 160, height: 120 });
    expect(requests.slice(0, 2)).toEqual(['resumed.mp4 bytes=0-', 'resumed.mp4 bytes=2000-']);
  });
});

describe('a store that keeps losing the connection mid-body is a MediaSourceError', () => {
  // The same 4000 bytes of tone.ogg as above, cut short by the store each
  // time: ffprobe exits with the demuxer's `End of file`. The mp4's index
  // comes first: ffmpeg exits 0 without a frame, its reconnects printed well
  // before the tail of stderr the message keeps.
  const cases: ['closed' | 'reset', string][] = [
    ['closed', 'ffprobe'],
    ['reset', 'ffprobe'],
    ['closed', 'ffmpeg'],
    ['reset', 'ffmpeg'],
  ];
  test.each(cases)('%s, every time, under %s', async (how, tool) => {
    let err: unknown;
    if (tool === 'ffprobe') {
      ffmpeg(TONE_OGG, `dropped-${how}.ogg`);
      drops.set(`dropped-${how}.ogg`, { at: 4000, how, times: Infinity });
      err = await probeMedia(`${base}/dropped-${how}.ogg${SIGNED}`, tools).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/(Stream ends prematurely|Will reconnect at)[\s\S]*: End of file$/);
    } else {
      ffmpeg([...CLIP_MP4, '-movflags', '+faststart'], `dropped-${how}.mp4`);
      const probe = await probeMedia(`${base}/dropped-${how}.mp4`, tools);
      drops.set(`dropped-${how}.mp4`, { at: 12_000, how, times: Infinity });
      err = await extractFrame(`${base}/dropped-${how}.mp4${SIGNED}`, probe, tools).catch((e: unknown) => e);
    }
    expect(err).toBeInstanceOf(MediaSourceError);
    expect((err as Error).message).not.toMatch(/deadbeef/);
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
