import { spawn } from 'node:child_process';
import { UnprocessableMediaError, aspectRatio, type AssetMetadata } from './image';
import { redactUrls } from './redact';

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

/**
 * ffmpeg could not read its input: the store was unreachable, answered with
 * an error (5xx, or 403 for an expired URL) or stalled. Not the content's
 * fault, so a later attempt can succeed, unlike UnprocessableMediaError.
 */
export class MediaSourceError extends Error {}

// What ffmpeg's network layer prints (after `url: `) when it did not get the
// bytes: tcp/tls errors, `Server returned 5XX Server Error reply` (or 403,
// 404…), and `End of file` for a connection reset mid-response. Decoders
// word their failures otherwise (`Invalid data found when processing input`).
const SOURCE_FAILURE =
  /Connection refused|Connection reset|Connection timed out|Broken pipe|Network is unreachable|No route to host|Host is unreachable|Failed to resolve hostname|Temporary failure in name resolution|Server returned|Input\/output error|I\/O error|End of file/i;

/** The error for a tool that exited non-zero, its stderr's tail (URLs redacted) as the message. */
function toolError(command: string, why: string, stderr: string): Error {
  const message = `${command} ${why}: ${redactUrls(stderr.trim()).slice(-500)}`;
  return SOURCE_FAILURE.test(stderr) ? new MediaSourceError(message) : new UnprocessableMediaError(message);
}

/** Runs a tool and collects its stdout (at most `maxBytes`). */
function run(command: string, args: string[], timeoutMs: number, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let killedFor: 'timeout' | 'output' | undefined;
    const timer = setTimeout(() => {
      killedFor ??= 'timeout';
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        killedFor ??= 'output';
        child.kill('SIGKILL');
      } else chunks.push(chunk);
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
      else if (killedFor === 'timeout') {
        // A stalled store and a file that is slow to decode look alike here;
        // retrying costs a few timeouts, not retrying loses the asset's metadata.
        reject(
          new MediaSourceError(`${command} timed out after ${timeoutMs} ms: ${redactUrls(stderr.trim()).slice(-500)}`),
        );
      } else if (killedFor === 'output') {
        reject(new UnprocessableMediaError(`${command} printed more than ${maxBytes} bytes`));
      } else reject(toolError(command, signal ? `killed (${signal})` : `exit ${code}`, stderr));
    });
  });
}

interface ProbeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
  /** attached_pic 1: cover art (ID3 APIC, MP4 covr), one still image, not a video track. */
  disposition?: { attached_pic?: number };
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
  /** The video track's stream index; undefined for audio (cover art is not video). */
  videoStream?: number;
  /** The cover art's stream index, when the file has one. */
  coverStream?: number;
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
  const isCover = (s: ProbeStream) => s.disposition?.attached_pic === 1;
  const video = probe.streams?.find((s) => s.codec_type === 'video' && !isCover(s));
  const cover = probe.streams?.find((s) => s.codec_type === 'video' && isCover(s));
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
  return {
    metadata,
    ...(video?.index !== undefined ? { videoStream: video.index } : {}),
    ...(cover?.index !== undefined ? { coverStream: cover.index } : {}),
    ...(duration !== undefined ? { duration } : {}),
  };
}

/**
 * The video's still as PNG: a second in (past fade-ins), or the first frame
 * of a clip shorter than two seconds.
 */
export async function extractFrame(url: string, probe: MediaProbe, tools: FfmpegTools): Promise<Buffer> {
  if (probe.videoStream === undefined) throw new UnprocessableMediaError('The file has no video track');
  const at = probe.duration !== undefined && probe.duration >= 2 ? 1 : 0;
  return grabFrame(url, probe.videoStream, ['-ss', String(at)], tools);
}

/**
 * The cover art as PNG. Read without seeking: an attached picture is one
 * frame at the start, and `-ss` (even 0) skips it.
 */
export async function extractCover(url: string, probe: MediaProbe, tools: FfmpegTools): Promise<Buffer> {
  if (probe.coverStream === undefined) throw new UnprocessableMediaError('The file has no cover art');
  return grabFrame(url, probe.coverStream, [], tools);
}

/** One frame of stream `index` as PNG; the stream is named since ffmpeg's own pick may be the cover. */
async function grabFrame(url: string, index: number, seek: string[], tools: FfmpegTools): Promise<Buffer> {
  const png = await run(
    tools.ffmpeg,
    [
      '-v',
      'error',
      '-nostdin',
      ...PROTOCOLS,
      ...seek,
      '-i',
      url,
      '-map',
      `0:${index}`,
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      'pipe:1',
    ],
    tools.timeoutMs,
    64 * 1024 * 1024,
  );
  if (png.length === 0) throw new UnprocessableMediaError(`ffmpeg decoded no frame of stream ${index}`);
  return png;
}
