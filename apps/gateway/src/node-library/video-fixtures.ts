import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { upload } from '../testing/asset-fixtures';
import { postAgent } from '../testing/catalog-fixtures';
import { pollRun, type RunBody, type RunStack } from '../testing/test-runs';

// Video and audio made by ffmpeg in the test, run through one media node
// behind the HTTP API, and the result downloaded and probed.

const work = mkdtempSync(path.join(tmpdir(), 'weft-video-nodes-'));

/** Removes the files this module wrote (call in afterAll). */
export function removeClipFiles(): void {
  rmSync(work, { recursive: true, force: true });
}

let fileCount = 0;
function tempFile(extension: string): string {
  return path.join(work, `f${fileCount++}.${extension}`);
}

function ffmpeg(args: string[]): Buffer {
  return execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

export interface ClipSpec {
  /** A plain colour (`red`, `#0000ff`), else testsrc2's moving pattern. */
  color?: string;
  width?: number;
  height?: number;
  fps?: number;
  seconds?: number;
  /** A tone under the picture: 440 Hz, or (`rising`) 440 Hz for the first half and 880 Hz for the second. */
  sound?: boolean | 'rising';
}

/** The lavfi source of a tone lasting `seconds`. */
function toneSource(seconds: number, rising = false): string {
  return rising
    ? `aevalsrc='0.5*sin(2*PI*if(lt(t,${seconds / 2}),440,880)*t)':s=48000:d=${seconds}`
    : `sine=frequency=440:sample_rate=48000:duration=${seconds}`;
}

/** An MP4 (H.264, AAC when it has sound) drawn by ffmpeg's lavfi sources. */
export function clip({
  color,
  width = 320,
  height = 240,
  fps = 25,
  seconds = 2,
  sound = false,
}: ClipSpec = {}): Buffer {
  const size = `${width}x${height}`;
  const picture = color
    ? `color=c=${color}:s=${size}:r=${fps}:d=${seconds}`
    : `testsrc2=s=${size}:r=${fps}:d=${seconds}`;
  const out = tempFile('mp4');
  ffmpeg([
    '-f',
    'lavfi',
    '-i',
    picture,
    ...(sound ? ['-f', 'lavfi', '-i', toneSource(seconds, sound === 'rising')] : []),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    ...(sound ? ['-c:a', 'aac'] : []),
    '-movflags',
    '+faststart',
    out,
  ]);
  return readFileSync(out);
}

/**
 * An MP4 showing each colour in turn (320×240, 25 fps) for `each` seconds,
 * or for its own entry of `durations`, with a tone under it when `sound`.
 */
export function stripes(
  colours: string[],
  { each = 1, durations, sound = false }: { each?: number; durations?: number[]; sound?: boolean } = {},
): Buffer {
  const out = tempFile('mp4');
  const lengths = colours.map((_, i) => durations?.[i] ?? each);
  const seconds = lengths.reduce((a, b) => a + b, 0);
  ffmpeg([
    ...colours.flatMap((c, i) => ['-f', 'lavfi', '-i', `color=c=${c}:s=320x240:r=25:d=${lengths[i]}`]),
    ...(sound ? ['-f', 'lavfi', '-i', toneSource(seconds)] : []),
    '-filter_complex',
    `${colours.map((_, i) => `[${i}:v]`).join('')}concat=n=${colours.length}:v=1:a=0[v]`,
    '-map',
    '[v]',
    ...(sound ? ['-map', `${colours.length}:a`, '-c:a', 'aac'] : []),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    out,
  ]);
  return readFileSync(out);
}

/** A WAV tone. */
export function tone(seconds = 2, rising = false): Buffer {
  const out = tempFile('wav');
  ffmpeg(['-f', 'lavfi', '-i', toneSource(seconds, rising), out]);
  return readFileSync(out);
}

/** Sound alone in an MP4 (AAC): uploaded, it is taken for a video. */
export function soundOnlyMp4(seconds = 2): Buffer {
  const out = tempFile('mp4');
  ffmpeg(['-f', 'lavfi', '-i', toneSource(seconds), '-c:a', 'aac', out]);
  return readFileSync(out);
}

export async function uploadMedia(stack: RunStack, apiKey: string, bytes: Buffer, name: string): Promise<string> {
  const res = await upload(stack.gw.app, apiKey, bytes, { partName: name });
  if (res.status !== 200) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export interface NodeUnderTest {
  type: string;
  params?: Record<string, unknown>;
  /** The node's input port, fed by the flow's input(s). */
  port: string;
  /** The kind of the node's output (the flow's output declares it); default `videos`. */
  output?: 'videos' | 'images' | 'audio';
}

/**
 * An agent of one media node fed by `inputs` asset inputs (`video_input`
 * unless `audio`), whose output is the flow's; several inputs feed the port
 * as a list, in order.
 */
export async function mediaAgent(
  stack: RunStack,
  apiKey: string,
  node: NodeUnderTest,
  inputs = 1,
  inputType: 'video_input' | 'audio_input' = 'video_input',
): Promise<string> {
  const ids = Array.from({ length: inputs }, (_, i) => `in${i}`);
  const flow: Flow = {
    nodes: [
      ...ids.map((id) => ({ id, type: inputType })),
      {
        id: 'node',
        type: node.type,
        ...(node.params ? { params: node.params } : {}),
        inputs: { [node.port]: inputs === 1 ? ids[0]! : ids },
      },
    ],
    outputs: [{ id: 'node', type: node.output ?? 'videos', description: 'The result' }],
  } as Flow;
  return (await postAgent(stack.gw.app, apiKey, { flow })).id;
}

/** POST /agents of a flow with `node`, which must be refused (422); the response body. */
export async function refusedAgent(stack: RunStack, apiKey: string, node: NodeUnderTest) {
  const flow = {
    nodes: [
      { id: 'in0', type: 'video_input' },
      { id: 'node', type: node.type, params: node.params ?? {}, inputs: { [node.port]: 'in0' } },
    ],
    outputs: [{ id: 'node', type: node.output ?? 'videos', description: '' }],
  };
  const res = await request(stack.gw.app)
    .post('/agents')
    .set('X-Api-Key', apiKey)
    .send({ name: 'Refused', description: 'A bad param', flow });
  if (res.status !== 422) throw new Error(`POST /agents: ${res.status}, expected 422: ${JSON.stringify(res.body)}`);
  return res.body as { detail: { loc: (string | number)[]; msg: string; type: string }[] };
}

/** A file that declares itself an MP4 and is not one. */
export const CORRUPT_MP4 = Buffer.concat([
  Buffer.from('000000186674797069736f6d0000020069736f6d6d703431', 'hex'),
  Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256)),
]);

/** POST /runs of `agentId` with the asset (or list of assets) of each input, then the run once it ended. */
export async function runAgent(
  stack: RunStack,
  apiKey: string,
  agentId: string,
  assetIds: (string | string[])[],
): Promise<RunBody> {
  const inputs = assetIds.map((ids, i) => ({
    id: `in${i}`,
    value: { asset_ids: typeof ids === 'string' ? [ids] : ids },
  }));
  const res = await request(stack.gw.app).post('/runs').set('X-Api-Key', apiKey).send({ agent_id: agentId, inputs });
  if (res.status !== 201) throw new Error(`POST /runs: ${res.status} ${JSON.stringify(res.body)}`);
  return pollRun(stack.gw, apiKey, `/runs/${res.body.id}`, undefined, 60_000);
}

/** The asset ids of the run's only result, after checking it completed. */
export function producedIds(run: RunBody): string[] {
  if (run.status !== 'completed') throw new Error(`run ${run.status}: ${JSON.stringify(run)}`);
  const results = run.results as { value: unknown }[];
  return results[0]!.value as string[];
}

/** Downloads an asset to a local file; its path. */
export async function download(stack: RunStack, apiKey: string, assetId: string, extension: string): Promise<string> {
  const res = await request(stack.gw.app)
    .get(`/assets/${assetId}/download`)
    .set('X-Api-Key', apiKey)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  if (res.status !== 200) throw new Error(`download ${assetId}: ${res.status}`);
  const file = tempFile(extension);
  writeFileSync(file, res.body as Buffer);
  return file;
}

export interface Probed {
  width?: number;
  height?: number;
  frameRate?: number;
  /** Of the container. */
  duration: number;
  videoCodec?: string;
  audioCodec?: string;
  sampleRate?: number;
  /** Video frames in the file (counted by decoding). */
  frames?: number;
}

/** What ffprobe finds in a local file. */
export function probe(file: string): Probed {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-count_frames', '-print_format', 'json', '-show_format', '-show_streams', file],
    { encoding: 'utf8' },
  );
  const json = JSON.parse(out) as {
    format: { duration: string };
    streams: {
      codec_type: string;
      codec_name: string;
      width?: number;
      height?: number;
      avg_frame_rate?: string;
      sample_rate?: string;
      nb_read_frames?: string;
    }[];
  };
  const video = json.streams.find((s) => s.codec_type === 'video');
  const audio = json.streams.find((s) => s.codec_type === 'audio');
  const [num, den] = (video?.avg_frame_rate ?? '0/1').split('/').map(Number);
  return {
    duration: Number(json.format.duration),
    ...(video
      ? {
          width: video.width!,
          height: video.height!,
          frameRate: den ? num! / den : 0,
          videoCodec: video.codec_name,
          frames: Number(video.nb_read_frames),
        }
      : {}),
    ...(audio ? { audioCodec: audio.codec_name, sampleRate: Number(audio.sample_rate) } : {}),
  };
}

/** The mean colour [r, g, b] of a 16×16 box of the frame shown at `seconds`: at its centre, or with its top left corner at `at`. */
export function colourAt(file: string, seconds: number, at?: { x: number; y: number }): [number, number, number] {
  const box = at ? `crop=16:16:${at.x}:${at.y}` : 'crop=16:16:(iw-16)/2:(ih-16)/2';
  const rgb = ffmpeg([
    '-ss',
    String(seconds),
    '-i',
    file,
    '-frames:v',
    '1',
    '-vf',
    `${box},scale=1:1:flags=area`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ]);
  if (rgb.length !== 3) throw new Error(`no frame at ${seconds} s of ${file}`);
  return [rgb[0]!, rgb[1]!, rgb[2]!];
}

/** The loudest sample of the file's sound, 0 (silence) to 1 (full scale). */
export function peakLevel(file: string, from = 0, seconds?: number): number {
  const pcm = ffmpeg([
    '-ss',
    String(from),
    ...(seconds !== undefined ? ['-t', String(seconds)] : []),
    '-i',
    file,
    '-vn',
    '-ac',
    '1',
    '-f',
    's16le',
    '-acodec',
    'pcm_s16le',
    'pipe:1',
  ]);
  let peak = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
  return peak / 32768;
}

/** The strongest frequency of the sound between `from` and `from + seconds`, in Hz (zero crossings). */
export function pitchOf(file: string, from: number, seconds: number): number {
  const rate = 48_000;
  const pcm = ffmpeg([
    '-ss',
    String(from),
    '-t',
    String(seconds),
    '-i',
    file,
    '-vn',
    '-ac',
    '1',
    '-ar',
    String(rate),
    '-f',
    's16le',
    '-acodec',
    'pcm_s16le',
    'pipe:1',
  ]);
  let crossings = 0;
  for (let i = 2; i + 1 < pcm.length; i += 2) {
    if (pcm.readInt16LE(i - 2) < 0 !== pcm.readInt16LE(i) < 0) crossings++;
  }
  return crossings / 2 / (pcm.length / 2 / rate);
}
