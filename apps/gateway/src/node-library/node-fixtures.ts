import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Flow } from '@weft/contracts';
import sharp from 'sharp';
import request from 'supertest';
import { upload } from '../testing/asset-fixtures';
import { postAgent } from '../testing/catalog-fixtures';
import { pollRun, type RunBody, type RunStack } from '../testing/test-runs';

// What the node library's tests share: uploading generated media, running a
// flow to its end through the API, and reading back what it produced.

export interface Org {
  id: string;
  apiKey: string;
}

/** POST /assets/upload; the new asset's id. */
export async function uploadAsset(stack: RunStack, org: Org, bytes: Buffer, name: string): Promise<string> {
  const res = await upload(stack.gw.app, org.apiKey, bytes, { partName: name });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A flat colour image (PNG unless `format` says otherwise). */
export function solid(width: number, height: number, color: string, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .toFormat(format)
    .toBuffer();
}

/** Publishes `flow` as an agent and runs it with `inputs` to its end. */
export async function runFlow(stack: RunStack, org: Org, flow: Flow, inputs: object[], timeoutMs = 30_000) {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs });
  if (res.status !== 201) throw new Error(`POST /runs: ${res.status} ${JSON.stringify(res.body)}`);
  return pollRun(stack.gw, org.apiKey, `/runs/${res.body.id}`, undefined, timeoutMs);
}

/** The value of the run's result `id`. */
export function resultOf(run: RunBody, id: string): unknown {
  const results = run.results as { id: string; value: unknown }[] | undefined;
  const found = results?.find((r) => r.id === id);
  if (!found) throw new Error(`run ${run.id} (${run.status}) has no result '${id}': ${JSON.stringify(run)}`);
  return found.value;
}

/** The asset ids of the run's result `id`. */
export function resultAssets(run: RunBody, id: string): string[] {
  expect(run.status).toBe('completed');
  return resultOf(run, id) as string[];
}

/** GET /assets/{id}/download: the bytes and headers. */
export async function download(stack: RunStack, org: Org, id: string) {
  const res = await request(stack.gw.app)
    .get(`/assets/${id}/download`)
    .set('X-Api-Key', org.apiKey)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  if (res.status !== 200) throw new Error(`download ${id}: ${res.status}`);
  return { bytes: res.body as Buffer, headers: res.headers as Record<string, string> };
}

/** GET /assets/{id}. */
export async function assetRecord(stack: RunStack, org: Org, id: string) {
  const res = await request(stack.gw.app).get(`/assets/${id}`).set('X-Api-Key', org.apiKey);
  if (res.status !== 200) throw new Error(`GET /assets/${id}: ${res.status}`);
  return res.body as Record<string, unknown>;
}

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
  at(x: number, y: number): number[];
}

/** An image's decoded pixels (RGBA). */
export async function pixelsOf(bytes: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: 4,
    data,
    at(x, y) {
      const i = (y * info.width + x) * 4;
      return [...data.subarray(i, i + 4)];
    },
  };
}

/** Whether two colours are within `tolerance` on every channel (RGB). */
export function near(actual: number[], expected: number[], tolerance = 8): boolean {
  return expected.slice(0, 3).every((v, i) => Math.abs(actual[i]! - v) <= tolerance);
}

/** A scratch directory of the test file, removed with it. */
export function scratchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-node-test-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs ffmpeg (media made for a test, or a frame decoded from a result). */
export function ffmpeg(args: string[]): Buffer {
  return execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args], { maxBuffer: 64 * 1024 * 1024 });
}

/** ffprobe's JSON of a file. */
export function ffprobe(file: string): {
  streams: { codec_type: string; width?: number; height?: number; codec_name?: string }[];
  format: { duration: string };
} {
  return JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file]).toString(),
  );
}

/** A run that failed: its reason and message as GET /runs/{id} reports them. */
export function failureOf(run: RunBody): { reason: unknown; error: string } {
  expect(run.status).toBe('failed');
  return { reason: run.failure_reason, error: String(run.error) };
}
