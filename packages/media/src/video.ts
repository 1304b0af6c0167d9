import { spawn } from 'node:child_process';
import { UnprocessableMediaError, aspectRatio, type AssetMetadata } from './image';

// Video and audio are read by ffmpeg/ffprobe straight from a presigned URL:
// they fetch only the byte ranges they need (the header, one frame), so a
// large video is never copied to the worker. The protocol whitelist stops a
// crafted file from making ffmpeg open local files or other URLs.

export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
  /** Kills a tool that runs longer than this. */
  timeoutMs: number;
}

const PROTOCOLS = ['-protocol_whitelist', 'http,https,tcp,tls'];

/** Runs a tool and collects its stdout (at most `maxBytes`). */
function run(command: string, args: string[], timeoutMs: number, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A missing tool is recorded as the asset's processing error, not retried.
      reject(err.code === 'ENOENT' ? new UnprocessableMediaError(`${command} is not installed`) : err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks));
      else {
        const why = signal ? `killed (${signal}: timeout or output too large)` : `exit ${code}`;
        reject(new UnprocessableMediaError(`${command} ${why}: ${stderr.trim().slice(-500)}`));
      }
    });
  });
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { duration?: string; bit_rate?: string; format_name?: string };
}

function frameRate(text: string | undefined): number | undefined {
  const [num, den] = (text ?? '').split('/').map(Number);
  if (!num || !den) return undefined;
  return Math.round((num / den) * 100) / 100;
}

function rounded(value: string | undefined, digits = 3): number | undefined {
  const n = Number(value);
  if (!value || !Number.isFinite(n)) return undefined;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export interface MediaProbe {
  metadata: AssetMetadata;
  hasVideo: boolean;
  duration?: number;
}

/** Duration, codecs, dimensions, frame and sample rates as ffprobe reports them. */
export async function probeMedia(url: string, tools: FfmpegTools): Promise<MediaProbe> {
  const out = await run(
    tools.ffprobe,
    ['-v', 'error', ...PROTOCOLS, '-print_format', 'json', '-show_format', '-show_streams', url],
    tools.timeoutMs,
    4 * 1024 * 1024,
  );
  let probe: ProbeOutput;
  try {
    probe = JSON.parse(out.toString('utf8')) as ProbeOutput;
  } catch {
    throw new UnprocessableMediaError('ffprobe printed no JSON');
  }
  const video = probe.streams?.find((s) => s.codec_type === 'video');
  const audio = probe.streams?.find((s) => s.codec_type === 'audio');
  const metadata: AssetMetadata = {};
  const duration = rounded(probe.format?.duration);
  if (duration !== undefined) metadata.duration = duration;
  if (probe.format?.bit_rate) metadata.bit_rate = Number(probe.format.bit_rate);
  if (video) {
    const rotation = Math.abs(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0);
    const swapped = rotation === 90 || rotation === 270;
    const width = swapped ? video.height : video.width;
    const height = swapped ? video.width : video.height;
    metadata.codec = video.codec_name ?? null;
    if (width) metadata.width = width;
    if (height) metadata.height = height;
    const ratio = aspectRatio(width, height);
    if (ratio) metadata.aspect_ratio = ratio;
    const fps = frameRate(video.avg_frame_rate);
    if (fps !== undefined) metadata.frame_rate = fps;
  }
  if (audio) {
    metadata[video ? 'audio_codec' : 'codec'] = audio.codec_name ?? null;
    if (audio.sample_rate) metadata.sample_rate = Number(audio.sample_rate);
    if (audio.channels) metadata.channels = audio.channels;
  }
  return { metadata, hasVideo: video !== undefined, ...(duration !== undefined ? { duration } : {}) };
}

/**
 * One frame as PNG: a second in (past fade-ins), or the first frame of a
 * clip shorter than two seconds.
 */
export function extractFrame(url: string, duration: number | undefined, tools: FfmpegTools): Promise<Buffer> {
  const at = duration !== undefined && duration >= 2 ? 1 : 0;
  return run(
    tools.ffmpeg,
    [
      '-v',
      'error',
      '-nostdin',
      ...PROTOCOLS,
      '-ss',
      String(at),
      '-i',
      url,
      '-frames:v',
      '1',
      '-an',
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      'pipe:1',
    ],
    tools.timeoutMs,
    64 * 1024 * 1024,
  );
}
