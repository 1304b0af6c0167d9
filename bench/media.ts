import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  assScript,
  H264_AAC_MP4,
  URL_INPUT,
  burnSubtitlesArgs,
  evenSize,
  joinClipsGraph,
  parseSubtitles,
  probeMedia,
  type MediaProbe,
} from '@weft/media';
import { mapToPalette, paletteOf } from '@weft/nodes';
import { createStorage, createUrlSigner, type UrlSigner } from '@weft/storage';
import { Pool } from 'pg';
import sharp from 'sharp';
import {
  childrenCpuMicros,
  cpuMicros,
  freePort,
  loadAverage,
  postJson,
  ROOT,
  sleep,
  startTs,
  statusBytes,
  stopChild,
  waitFor,
} from './lib/proc';
import { createOrg, startBenchGateway, startBenchStack } from './lib/stack';
import { uploadFile } from './lib/upload-file';

// `npm run bench:media`: media nodes run through a real worker process
// (gateway + worker, PostgreSQL, Redis, S3), each beside the same
// ffmpeg/sharp operation run bare by this process in the same run, on the
// same inputs: video_concat of two 60 s 720p clips, add_logo on a
// 4000×3000 photo, match_brand_colors, video_subtitle. For each: the node's
// wall time (its execution as PostgreSQL records it) and CPU time (the worker
// process and the ffmpeg it ran), the bare operation's, and their ratios
// (bare ÷ node: 1 is bare speed; target ≥ 0.9). A node type that is not
// implemented yet is reported as such. Last, the worker's peak resident
// memory growth while it concatenates two 500 MiB videos (target ≤ 150 MiB):
// ffmpeg streams them from the store and the result is streamed back, never
// held in the worker. Inputs are generated once into .weft/bench/media.
// Figures swing with the machine's load; the ratios are what matter.

const MiB = 1024 * 1024;
const MEDIA_DIR = path.join(ROOT, '.weft', 'bench', 'media');
const CLIP_SECONDS = Number(process.env.BENCH_CLIP_SECONDS ?? 60);
const BIG_BYTES = Number(process.env.BENCH_BIG_MIB ?? 500) * MiB;
const TARGET_SPEED = 0.9;
const TARGET_RSS_GROWTH = 150 * MiB;
const PALETTE = ['#0b3d91', '#fc3d21', '#ffffff', '#1a1a1a', '#f2c14e'];
const tools = { ffmpeg: process.env.FFMPEG_PATH ?? 'ffmpeg', ffprobe: process.env.FFPROBE_PATH ?? 'ffprobe' };

// ---- inputs, generated once ----

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}

/** `file` in MEDIA_DIR, made by `make(tmp)` unless it is already there. */
async function generated(file: string, make: (tmp: string) => Promise<void>): Promise<string> {
  const target = path.join(MEDIA_DIR, file);
  if (existsSync(target)) return target;
  mkdirSync(MEDIA_DIR, { recursive: true });
  const tmp = `${target}.tmp${path.extname(file)}`;
  console.error(`bench:media: generating ${path.relative(ROOT, target)}…`);
  await make(tmp);
  renameSync(tmp, target);
  return target;
}

const ffmpegArgs = (args: string[]) => ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args];

async function inputs() {
  const clip = await generated(`clip-720p-${CLIP_SECONDS}s.mp4`, (out) =>
    run(
      tools.ffmpeg,
      ffmpegArgs([
        '-f',
        'lavfi',
        '-i',
        `testsrc2=s=1280x720:r=30:d=${CLIP_SECONDS}`,
        '-f',
        'lavfi',
        '-i',
        `sine=frequency=440:sample_rate=48000:duration=${CLIP_SECONDS}`,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '23',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-movflags',
        '+faststart',
        out,
      ]),
    ),
  );
  // Noise at a near-lossless quantizer: about 200 Mbit/s, cut at BIG_BYTES by -fs.
  const big = await generated(`big-${BIG_BYTES / MiB}mib.mp4`, (out) =>
    run(
      tools.ffmpeg,
      ffmpegArgs([
        '-f',
        'lavfi',
        '-i',
        'testsrc2=s=1280x720:r=30:d=120,noise=alls=30:allf=t+u',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:sample_rate=48000:duration=120',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-qp',
        '10',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-fs',
        String(BIG_BYTES),
        out,
      ]),
    ),
  );
  const photo = await generated('photo-4000x3000.jpg', async (out) => {
    const [width, height] = [4000, 3000];
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        raw[i] = (x * 255) / width;
        raw[i + 1] = (y * 255) / height;
        raw[i + 2] = ((x ^ y) & 255) / 2;
      }
    }
    await sharp(raw, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 90 })
      .toFile(out);
  });
  const logo = await generated('logo-600x300.png', (out) =>
    sharp({ create: { width: 600, height: 300, channels: 4, background: { r: 252, g: 61, b: 33, alpha: 0.8 } } })
      .png()
      .toFile(out)
      .then(() => undefined),
  );
  const brandImage = await generated('brand-1600x1200.png', (out) =>
    sharp(photo)
      .resize(1600, 1200)
      .png()
      .toFile(out)
      .then(() => undefined),
  );
  const srt = Array.from({ length: CLIP_SECONDS }, (_, i) => {
    const t = (s: number) => `00:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')},000`;
    return `${i + 1}\n${t(i)} --> ${t(i + 1)}\nSubtitle line number ${i + 1}\n`;
  }).join('\n');
  return { clip, big, photo, logo, brandImage, srt };
}

// ---- the stack ----

interface Api {
  base: string;
  auth: Record<string, string>;
  worker: ChildProcess;
  db: Pool;
  /** Signs URLs of stored objects as the worker does (servers' audience). */
  signer: UrlSigner;
}

/** The presigned URL of an asset's original, as a node's ffmpeg gets it. */
async function originalUrl(api: Api, assetId: string): Promise<string> {
  const { rows } = await api.db.query<{ storage_key: string }>('SELECT storage_key FROM assets WHERE id = $1', [
    assetId,
  ]);
  return api.signer.urlFor(rows[0]!.storage_key);
}

async function getJson(api: Api, url: string) {
  const res = await fetch(`${api.base}${url}`, { headers: api.auth });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Waits until the upload's own processing (ffprobe, thumbnail) has run, so that it overlaps nothing measured. */
async function processed(api: Api, assetId: string): Promise<void> {
  for (const deadline = Date.now() + 10 * 60_000; Date.now() < deadline; await sleep(250)) {
    const asset = await getJson(api, `/assets/${assetId}`);
    if (Object.keys((asset.asset_metadata as object | null) ?? {}).length > 0) return;
  }
  throw new Error(`asset ${assetId} was not processed within 10 minutes`);
}

async function uploaded(api: Api, file: string): Promise<string> {
  const id = await uploadFile(api.base, api.auth, file);
  await processed(api, id);
  return id;
}

interface FlowNode {
  id: string;
  type: string;
  params?: Record<string, unknown>;
  inputs?: Record<string, string | string[]>;
}

/** An agent whose node `node` is the one measured; its inputs are the flow's `*_input` nodes. */
async function agent(api: Api, nodes: FlowNode[], output: string): Promise<string> {
  const created = await postJson(`${api.base}/agents`, api.auth, {
    name: 'bench:media',
    description: 'One media node',
    tags: ['bench'],
    estimated_cost: 0,
    flow: { nodes, outputs: [{ id: 'node', type: output, description: 'The result' }] },
  });
  return created.id as string;
}

interface NodeRun {
  status: string;
  error?: string;
  /** The node's execution, started → completed, as PostgreSQL records it. */
  wallMs: number;
  /** CPU time of the worker process and the children it waited for (ffmpeg) while the run went on. */
  cpuMs: number;
  /** The worker's resident memory: before the run, the most sampled during it, and its high-water mark after. */
  rss: { before: number; peak: number; hwmBefore: number; hwmAfter: number };
}

const workerCpu = (pid: number) => (cpuMicros(pid) + childrenCpuMicros(pid)) / 1000;

async function runNode(api: Api, agentId: string, inputs: { id: string; value: unknown }[]): Promise<NodeRun> {
  const pid = api.worker.pid!;
  const rssBefore = statusBytes(pid, 'VmRSS');
  const hwmBefore = statusBytes(pid, 'VmHWM');
  const cpuBefore = workerCpu(pid);
  let peak = rssBefore;
  const created = await postJson(`${api.base}/runs`, api.auth, { agent_id: agentId, inputs });
  let body: Record<string, unknown>;
  for (;;) {
    peak = Math.max(peak, statusBytes(pid, 'VmRSS'));
    body = await getJson(api, `/runs/${created.id as string}`);
    if (body.status !== 'in_progress') break;
    await sleep(50);
  }
  const cpuMs = workerCpu(pid) - cpuBefore;
  const { rows } = await api.db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM completed_at - started_at) * 1000 AS ms FROM node_executions WHERE run_id = $1 AND node_id = 'node'`,
    [created.id],
  );
  return {
    status: body.status as string,
    ...(typeof body.error === 'string' ? { error: body.error } : {}),
    wallMs: Number(rows[0]?.ms ?? Number.NaN),
    cpuMs,
    rss: { before: rssBefore, peak, hwmBefore, hwmAfter: statusBytes(pid, 'VmHWM') },
  };
}

// ---- bare operations ----

interface Bare {
  wallMs: number;
  cpuMs: number;
}

/** An operation of this process (sharp: libvips threads count in process CPU time). */
async function bareInProcess(op: () => Promise<unknown>): Promise<Bare> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await op();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - t0, cpuMs: (used.user + used.system) / 1000 };
}

/** ffmpeg run by this process; its CPU is read from this process's waited-for children. */
async function bareFfmpeg(args: string[]): Promise<Bare> {
  const before = childrenCpuMicros(process.pid);
  const t0 = performance.now();
  await run(tools.ffmpeg, ffmpegArgs(args));
  return { wallMs: performance.now() - t0, cpuMs: (childrenCpuMicros(process.pid) - before) / 1000 };
}

// ---- report ----

interface Row {
  name: string;
  node?: NodeRun;
  bare: Bare;
  notImplemented?: boolean;
}

const s = (ms: number) => (ms / 1000).toFixed(2);
const mib = (bytes: number) => (bytes / MiB).toFixed(1);
const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

function report(rows: Row[]): string {
  const lines = [
    '| node | node wall s | bare wall s | speed (bare ÷ node wall) | node CPU s | bare CPU s | CPU ratio (bare ÷ node) | target |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    if (r.notImplemented || !r.node || r.node.status !== 'completed') {
      const why = r.notImplemented ? 'not implemented' : `run ${r.node?.status}: ${r.node?.error ?? ''}`;
      lines.push(`| ${r.name} | ${why} | ${s(r.bare.wallMs)} | – | – | ${s(r.bare.cpuMs)} | – | ≥ ${TARGET_SPEED} |`);
      continue;
    }
    const speed = r.bare.wallMs / r.node.wallMs;
    const cpu = r.bare.cpuMs / r.node.cpuMs;
    lines.push(
      `| ${r.name} | ${s(r.node.wallMs)} | ${s(r.bare.wallMs)} | ${speed.toFixed(2)} | ${s(r.node.cpuMs)} | ` +
        `${s(r.bare.cpuMs)} | ${cpu.toFixed(2)} | ≥ ${TARGET_SPEED}: wall ${verdict(speed >= TARGET_SPEED)}, CPU ${verdict(cpu >= TARGET_SPEED)} |`,
    );
  }
  return lines.join('\n');
}

const isNotImplemented = (r: NodeRun) => r.status === 'failed' && /is not implemented/.test(r.error ?? '');

// ---- main ----

async function main() {
  const media = await inputs();
  const stack = await startBenchStack({ name: 'bench-media' });
  const port = await freePort();
  const env = { ...stack.serviceEnv, ASSET_MAX_UPLOAD_BYTES: String(4 * BIG_BYTES) };
  const gateway = startBenchGateway({ ...stack, serviceEnv: env }, port, []);
  const worker = startTs('apps/worker/src/main.ts', {
    ...env,
    WORKER_HTTP_PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  });
  const base = `http://127.0.0.1:${port}`;
  const db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  const rows: Row[] = [];
  let rssLine = '';
  try {
    await waitFor(`${base}/readyz`);
    const signer = createUrlSigner(createStorage(stack.s3), { ttlSeconds: 3600, audience: 'servers' });
    const api: Api = { base, auth: await createOrg(base, stack.adminToken, 1_000_000), worker, db, signer };
    const assets = (id: string) => ({ asset_ids: [id] });

    // video_concat of two 60 s 720p clips.
    const clipId = await uploaded(api, media.clip);
    const concat = await agent(
      api,
      [
        { id: 'a', type: 'video_input' },
        { id: 'b', type: 'video_input' },
        { id: 'node', type: 'video_concat', inputs: { videos: ['a', 'b'] } },
      ],
      'videos',
    );
    const twoClips = [
      { id: 'a', value: assets(clipId) },
      { id: 'b', value: assets(clipId) },
    ];
    // Unmeasured: the worker's first media node loads its code and warms its pools.
    await runNode(api, concat, twoClips);
    const concatRun = await runNode(api, concat, twoClips);
    const clipUrl = await originalUrl(api, clipId);
    const bareConcat = await bareFfmpeg(await concatArgs([clipUrl, clipUrl], path.join(MEDIA_DIR, 'out-concat.mp4')));
    rows.push({ name: `video_concat (2 × ${CLIP_SECONDS} s 720p)`, node: concatRun, bare: bareConcat });

    // add_logo on a 4000×3000 photo.
    const photoId = await uploaded(api, media.photo);
    const logoId = await uploaded(api, media.logo);
    const logoAgent = await agent(
      api,
      [
        { id: 'photo', type: 'image_input' },
        { id: 'logo', type: 'image_input' },
        { id: 'node', type: 'add_logo', inputs: { image: 'photo', logo: 'logo' } },
      ],
      'images',
    );
    const logoRun = await runNode(api, logoAgent, [
      { id: 'photo', value: assets(photoId) },
      { id: 'logo', value: assets(logoId) },
    ]);
    const bareLogo = await bareInProcess(async () => {
      // The node's defaults: a logo 0.2 of the width, bottom right, 24 px from the edges.
      const logo = await sharp(readFileSync(media.logo)).resize({ width: 800 }).toBuffer({ resolveWithObject: true });
      return sharp(readFileSync(media.photo))
        .composite([{ input: logo.data, left: 4000 - 800 - 24, top: 3000 - logo.info.height - 24 }])
        .jpeg()
        .toBuffer();
    });
    rows.push({
      name: 'add_logo (4000×3000 JPEG)',
      node: logoRun,
      bare: bareLogo,
      notImplemented: isNotImplemented(logoRun),
    });

    // match_brand_colors on a 1600×1200 image, a palette of five.
    const brandImageId = await uploaded(api, media.brandImage);
    const brandAgent = await agent(
      api,
      [
        { id: 'image', type: 'image_input' },
        { id: 'node', type: 'match_brand_colors', params: { colors: PALETTE }, inputs: { image: 'image' } },
      ],
      'images',
    );
    const brandRun = await runNode(api, brandAgent, [{ id: 'image', value: assets(brandImageId) }]);
    // The node's own mapping (palette-map.ts, culori's CIEDE2000) on the decoded pixels, then the same encode.
    const bareBrand = await bareInProcess(async () => {
      const { data, info } = await sharp(readFileSync(media.brandImage))
        .toColourspace('srgb')
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      await mapToPalette(data, paletteOf(PALETTE), 1, new AbortController().signal);
      return sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
        .removeAlpha()
        .jpeg()
        .toBuffer();
    });
    rows.push({
      name: `match_brand_colors (1600×1200, ${PALETTE.length} colours)`,
      node: brandRun,
      bare: bareBrand,
      notImplemented: isNotImplemented(brandRun),
    });

    // video_subtitle on the 60 s clip.
    const subtitleAgent = await agent(
      api,
      [
        { id: 'video', type: 'video_input' },
        { id: 'srt', type: 'text_input' },
        { id: 'node', type: 'video_subtitle', inputs: { video: 'video', subtitles: 'srt' } },
      ],
      'videos',
    );
    const subtitleRun = await runNode(api, subtitleAgent, [
      { id: 'video', value: assets(clipId) },
      { id: 'srt', value: media.srt },
    ]);
    // The node's own script and ffmpeg command (defaults: white text at the bottom, sized to the clip).
    const clipProbe = await probeMedia(clipUrl, { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', timeoutMs: 60_000 });
    const scriptPath = path.join(MEDIA_DIR, 'bench.ass');
    const [width, height] = [Number(clipProbe.metadata.width), Number(clipProbe.metadata.height)];
    writeFileSync(
      scriptPath,
      assScript(parseSubtitles(media.srt), { color: '#ffffff', position: 'bottom', width, height }),
    );
    const bareSubtitle = await bareFfmpeg(
      burnSubtitlesArgs({
        video: {
          url: clipUrl,
          stream: clipProbe.videoStream!,
          ...(clipProbe.audioStream !== undefined ? { audioStream: clipProbe.audioStream } : {}),
          audioCodec: typeof clipProbe.metadata.audio_codec === 'string' ? clipProbe.metadata.audio_codec : null,
        },
        scriptPath,
        output: path.join(MEDIA_DIR, 'out-subtitle.mp4'),
      }),
    );
    rows.push({
      name: `video_subtitle (${CLIP_SECONDS} s 720p)`,
      node: subtitleRun,
      bare: bareSubtitle,
      notImplemented: isNotImplemented(subtitleRun),
    });

    // The worker's memory while it joins two large videos.
    const bigId = await uploaded(api, media.big);
    const bigRun = await runNode(api, concat, [
      { id: 'a', value: assets(bigId) },
      { id: 'b', value: assets(bigId) },
    ]);
    const { before, peak, hwmBefore, hwmAfter } = bigRun.rss;
    // The sampled peak, or the kernel's exact one when this run raised the high-water mark.
    const growth = Math.max(peak, hwmAfter > hwmBefore ? hwmAfter : 0) - before;
    rssLine =
      `video_concat of 2 × ${mib(statSync(media.big).size)} MiB (${bigRun.status}, ${s(bigRun.wallMs)} s): ` +
      `worker RSS ${mib(before)} MiB before, peak ${mib(before + growth)} MiB (VmHWM ${mib(hwmBefore)} → ${mib(hwmAfter)} MiB) → ` +
      `growth ${mib(growth)} MiB; target ≤ ${mib(TARGET_RSS_GROWTH)} MiB: ${verdict(growth <= TARGET_RSS_GROWTH && bigRun.status === 'completed')}`;
  } finally {
    await Promise.all([stopChild(worker), stopChild(gateway)]);
    await db.end();
    await stack.stop();
    if (!process.env.BENCH_KEEP_OUTPUTS) {
      for (const out of ['out-concat.mp4', 'out-subtitle.mp4']) rmSync(path.join(MEDIA_DIR, out), { force: true });
    }
  }
  console.log(
    `\nbench:media — media nodes through 1 gateway + 1 worker process (heavy concurrency 2), each beside the same ` +
      `operation run bare by the benchmark in the same run; same machine, load average ${loadAverage()}\n`,
  );
  console.log(report(rows));
  console.log(`\n${rssLine}`);
  console.log(
    '\nNode wall time: its execution as PostgreSQL records it (probe, ffmpeg or sharp, storing the result). ' +
      'Node CPU: the worker process and the ffmpeg it ran, over the run (the output’s own asset processing may add a little).',
  );
  console.log('(exit code 0 whether or not the targets are met: figures swing with the machine’s load)');
}

/** The ffmpeg arguments video_concat runs on these URLs: the same graph, from the same probes. */
async function concatArgs(urls: string[], out: string): Promise<string[]> {
  const probes: MediaProbe[] = [];
  for (const url of urls) probes.push(await probeMedia(url, { ...tools, timeoutMs: 60_000 }));
  const first = probes[0]!.metadata;
  const frame = {
    ...evenSize(first.width as number, first.height as number),
    frameRate: (first.frame_rate as number | undefined) ?? 30,
  };
  const { filter, withSound } = joinClipsGraph(
    probes.map((p) => ({
      videoStream: p.videoStream!,
      audio: 'audio_codec' in p.metadata,
      ...(p.duration !== undefined ? { duration: p.duration } : {}),
    })),
    frame,
  );
  return [
    ...urls.flatMap((url) => [...URL_INPUT, '-i', url]),
    '-filter_complex',
    filter,
    '-map',
    '[v]',
    ...(withSound ? ['-map', '[a]'] : []),
    ...H264_AAC_MP4,
    out,
  ];
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
