import type { Flow } from '@weft/contracts';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { upload } from './asset-fixtures';
import { postAgent } from './catalog-fixtures';
import type { TestGateway } from './test-gateway';
import { pollRun, type RunBody } from './test-runs';

// Audio and video for tests of media nodes: made by ffmpeg from lavfi
// sources, run through flows over the API, and the results probed with
// ffprobe/ffmpeg after downloading them.

/** A temporary folder for one test file's media, removed by `cleanup`. */
export function mediaDir(): { dir: string; file(name: string): string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-av-'));
  return {
    dir,
    file: (name) => path.join(dir, name),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs ffmpeg with `args` (inputs, filters) writing `out`; returns the file's bytes. */
export function ffmpegFile(out: string, args: string[]): Buffer {
  execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args, out]);
  return fs.readFileSync(out);
}

/** `seconds` of 320×240 `source` (a lavfi video source) at 25 fps as H.264 MP4, with a sine tone of `toneHz` when given. */
export function testVideo(out: string, seconds: number, toneHz?: number, source = 'testsrc2'): Buffer {
  const sound = toneHz ? ['-f', 'lavfi', '-i', `sine=frequency=${toneHz}:duration=${seconds}`] : [];
  return ffmpegFile(out, [
    '-f',
    'lavfi',
    '-i',
    `${source}${source.includes('=') ? ':' : '='}size=320x240:rate=25:duration=${seconds}`,
    ...sound,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    ...(toneHz ? ['-c:a', 'aac', '-shortest'] : []),
  ]);
}

/** `seconds` of a sine tone as WAV (or MP3 for an `.mp3` path). */
export function testTone(out: string, seconds: number, hz: number): Buffer {
  return ffmpegFile(out, ['-f', 'lavfi', '-i', `sine=frequency=${hz}:duration=${seconds}`]);
}

/** Uploads `bytes` as `filename`; returns the asset id. */
export async function uploadMedia(gw: TestGateway, apiKey: string, bytes: Buffer, filename: string): Promise<string> {
  const res = await upload(gw.app, apiKey, bytes, { partName: filename });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`upload ${filename}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Publishes `flow`, runs it with `inputs` and waits for it to end (media nodes take seconds). */
export async function runFlow(
  gw: TestGateway,
  apiKey: string,
  flow: Flow,
  inputs: { id: string; value: unknown }[],
): Promise<RunBody> {
  const agent = await postAgent(gw.app, apiKey, { flow });
  const res = await request(gw.app).post('/runs').set('X-Api-Key', apiKey).send({ agent_id: agent.id, inputs });
  if (res.status !== 201) throw new Error(`POST /runs: ${res.status} ${JSON.stringify(res.body)}`);
  return pollRun(gw, apiKey, `/runs/${res.body.id}`, undefined, 120_000);
}

/** The asset ids a completed run gave for output `id`. */
export function outputAssets(run: RunBody, id: string): string[] {
  const result = (run.results as { id: string; value: unknown }[]).find((r) => r.id === id);
  if (!result) throw new Error(`run ${run.id} has no result ${id}: ${JSON.stringify(run)}`);
  return result.value as string[];
}

/** Downloads asset `id` into the folder as `name`; returns its path. */
export async function downloadTo(gw: TestGateway, apiKey: string, id: string, file: string): Promise<string> {
  const res = await request(gw.app)
    .get(`/assets/${id}/download`)
    .set('X-Api-Key', apiKey)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  if (res.status !== 200) throw new Error(`download ${id}: ${res.status}`);
  fs.writeFileSync(file, res.body as Buffer);
  return file;
}

export interface ProbedStream {
  index: number;
  codec_type: 'video' | 'audio' | string;
  codec_name: string;
  width?: number;
  height?: number;
  duration?: string;
  bit_rate?: string;
}

/** ffprobe's streams and format duration of a local file. */
export function probeFile(file: string): { streams: ProbedStream[]; duration: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file]);
  const parsed = JSON.parse(out.toString('utf8')) as { streams: ProbedStream[]; format: { duration: string } };
  return { streams: parsed.streams, duration: Number(parsed.format.duration) };
}

export const streamOf = (file: string, type: 'video' | 'audio') =>
  probeFile(file).streams.find((s) => s.codec_type === type);

/** The size of every packet of the file's video stream, in order: equal lists mean a copied stream. */
export function videoPacketSizes(file: string): number[] {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=size',
    '-of',
    'csv=p=0',
    file,
  ]);
  return out.toString('utf8').trim().split('\n').map(Number);
}

/**
 * Mean volume (dB) of the file's sound, over `[from, to)` seconds when given,
 * through a narrow band-pass at `bandHz` when given: how much of a tone is there.
 */
export function meanVolume(file: string, options: { bandHz?: number; from?: number; to?: number } = {}): number {
  const { bandHz, from, to } = options;
  const band = bandHz ? `bandpass=f=${bandHz}:width_type=h:w=40,` : '';
  const filters = [
    ...(from !== undefined || to !== undefined
      ? [`atrim=start=${from ?? 0}${to !== undefined ? `:end=${to}` : ''}`]
      : []),
    // Twice: one two-pole band-pass lets too much of a tone an octave away through.
    ...(bandHz ? [band + band.slice(0, -1)] : []),
    'volumedetect',
  ];
  const result = spawnSync(
    'ffmpeg',
    ['-nostdin', '-hide_banner', '-i', file, '-vn', '-af', filters.join(','), '-f', 'null', '-'],
    {
      encoding: 'utf8',
    },
  );
  const mean = /mean_volume: (-?[\d.]+|-inf) dB/.exec(result.stderr);
  if (!mean) throw new Error(`volumedetect found no sound in ${file}: ${result.stderr.slice(-500)}`);
  return mean[1] === '-inf' ? -Infinity : Number(mean[1]);
}

/** One frame at `seconds` as RGB bytes (width × height × 3). */
export function frameAt(file: string, seconds: number): Buffer {
  return execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      '-ss',
      String(seconds),
      '-i',
      file,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
}
