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

// A response cut short (the store or a proxy closed or reset the connection
// before the Content-Length it declared) is resumed by ffmpeg's http layer
// with a Range request from where it stopped: at once, then after 1 s, then
// it gives up with EIO. So a one-off drop costs nothing, and a store that
// keeps dropping fails within seconds, not at the tool timeout.
// -reconnect_on_network_error does the same for a connection refused, or
// closed before any header (else reported only as `End of file`), at the cost
// of a second before an unreachable store is reported.
// Not -reconnect_streamed: a server without byte ranges would be re-read
// from byte 0 into the middle of the demuxer's stream.
const RECONNECT = ['-reconnect', '1', '-reconnect_on_network_error', '1', '-reconnect_delay_max', '1'];

// Warnings, not only errors: the line that tells a broken connection apart
// (`Will reconnect at …`, below) is a warning.
const INPUT = ['-v', 'warning', ...PROTOCOLS, ...RECONNECT];

/**
 * ffmpeg could not read its input: the store was unreachable, answered with
 * an error (5xx, or 403 for an expired URL) or stalled. Not the content's
 * fault, so a later attempt can succeed, unlike UnprocessableMediaError.
 */
export class MediaSourceError extends Error {}

// Only what ffmpeg's network layer prints: tcp/tls errors, `Server returned
// 5XX Server Error reply` (or 403, 404…), `Stream ends prematurely at N,
// should be M` (the body was shorter than its Content-Length) and `Will
// reconnect at N … error=…` (any connection lost, reset or refused; the only
// trace of a reset mid-body, which ffmpeg does not report as an error).
// Not the outcome a demuxer makes of missing bytes, `End of file` or
// `Input/output error`: a file that is itself truncated, served whole, ends
// the same way (ogg, flac, webm, mp4 with its index first cut short), and
// retrying it five times only delays its record. The http layer compares the
// bytes it got with the Content-Length, so it tells the two apart; a drop
// that ffmpeg resumed and a file then found truncated errs towards a retry.
const SOURCE_FAILURE =
  /Connection refused|Connection reset|Connection timed out|Broken pipe|Network is unreachable|No route to host|Host is unreachable|Failed to resolve hostname|Temporary failure in name resolution|Server returned|Stream ends prematurely|Will reconnect at|I\/O error/i;

interface ToolRun {
  stdout: Buffer;
  /** The tail of stderr. */
  stderr: string;
  /** Whether any line of stderr (not only the tail kept) matched SOURCE_FAILURE. */
  sourceFailed: boolean;
}

/** The error for a failed run, its stderr's tail (URLs redacted) in the message. */
function toolError(command: string, why: string, { stderr, sourceFailed }: Omit<ToolRun, 'stdout'>): Error {
  const message = `${command} ${why}: ${redactUrls(stderr.trim()).slice(-500)}`;
  return sourceFailed ? new MediaSourceError(message) : new UnprocessableMediaError(message);
}

/**
 * Runs a tool and collects its stdout (at most `maxBytes`). Aborting
 * `signal` kills it at once and rejects with the signal's reason.
 */
function run(
  command: string,
  args: string[],
  timeoutMs: number,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const onAbort = () => {
      killedFor ??= 'abort';
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let line = '';
    let sourceFailed = false;
    let killedFor: 'timeout' | 'output' | 'abort' | undefined;
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
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      // Warnings can run long (a damaged stream): the tail holds the final
      // error, and each line is classified as it comes, wherever it falls.
      stderr = (stderr + text).slice(-4000);
      const lines = (line + text).split('\n');
      line = lines.pop()!.slice(-1000);
      if (!sourceFailed) sourceFailed = lines.some((l) => SOURCE_FAILURE.test(l));
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // A missing tool is recorded as the asset's processing error, not retried.
      reject(err.code === 'ENOENT' ? new UnprocessableMediaError(`${command} is not installed`) : err);
    });
    child.on('close', (code, killSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (!sourceFailed) sourceFailed = SOURCE_FAILURE.test(line);
      if (killedFor === 'abort') reject(signal!.reason);
      else if (code === 0) resolve({ stdout: Buffer.concat(chunks), stderr, sourceFailed });
      else if (killedFor === 'timeout') {
        // A stalled store and a file that is slow to decode look alike here;
        // retrying costs a few timeouts, not retrying loses the asset's metadata.
        reject(
          new MediaSourceError(`${command} timed out after ${timeoutMs} ms: ${redactUrls(stderr.trim()).slice(-500)}`),
        );
      } else if (killedFor === 'output') {
        reject(new UnprocessableMediaError(`${command} printed more than ${maxBytes} bytes`));
      } else
        reject(toolError(command, killSignal ? `killed (${killSignal})` : `exit ${code}`, { stderr, sourceFailed }));
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
  /** The first audio track's stream index, when the file has sound. */
  audioStream?: number;
  duration?: number;
}

/** Duration, codecs, dimensions, frame and sample rates as ffprobe reports them; `signal` kills ffprobe. */
export async function probeMedia(url: string, tools: FfmpegTools, signal?: AbortSignal): Promise<MediaProbe> {
  const { stdout: out } = await run(
    tools.ffprobe,
    [...INPUT, '-print_format', 'json', '-show_format', '-show_streams', url],
    tools.timeoutMs,
    4 * 1024 * 1024,
    signal,
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
    ...(audio?.index !== undefined ? { audioStream: audio.index } : {}),
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
  const { stdout: png, ...rest } = await run(
    tools.ffmpeg,
    [
      ...INPUT,
      '-nostdin',
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
  // ffmpeg exits 0 with no frame when its input ended early: the file's fault,
  // unless the connection broke on the way.
  if (png.length === 0) throw toolError(tools.ffmpeg, `decoded no frame of stream ${index}`, rest);
  return png;
}

/**
 * What goes before each `-i <presigned URL>` of a media node's ffmpeg
 * command: only network protocols (a crafted file cannot make ffmpeg open a
 * local file or another URL) and reconnects, as for uploads.
 */
export const URL_INPUT: readonly string[] = [...PROTOCOLS, ...RECONNECT];

export interface FfmpegRun {
  ffmpeg: string;
  /** Kills ffmpeg when aborted (the node's cancel or timeout); the promise rejects with its reason. */
  signal: AbortSignal;
}

/**
 * Runs ffmpeg for a media node: `args` are its inputs (each URL after
 * URL_INPUT), filters and output file, which ffmpeg writes (`-y`). Rejects
 * with UnprocessableMediaError when the content is at fault (stderr's tail,
 * URLs redacted, in the message) and MediaSourceError when the store is.
 * No timer of its own: the node's timeout aborts `signal`.
 */
export async function runFfmpeg(run_: FfmpegRun, args: string[]): Promise<void> {
  await run(
    run_.ffmpeg,
    ['-nostdin', '-hide_banner', '-v', 'warning', '-y', ...args],
    2 ** 31 - 1,
    64 * 1024,
    run_.signal,
  );
}
