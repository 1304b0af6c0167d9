import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import sharp from 'sharp';
import { mediaDir, type MediaDir } from './files';

// Media made in the test: images drawn by sharp, video and audio by ffmpeg's
// lavfi sources.

/** Video encoding of the clips made here: fast, and what players expect of H.264. */
const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** Runs ffmpeg with `args`; its standard output (a frame or samples piped out). */
export function ffmpeg(args: string[]): Buffer {
  return execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Runs ffmpeg with `args` (inputs, filters) writing `out`; the file's bytes. */
export function ffmpegFile(out: string, args: string[]): Buffer {
  ffmpeg([...args, out]);
  return fs.readFileSync(out);
}

/** A flat colour image (PNG unless `format` says otherwise). */
export function solid(width: number, height: number, color: string, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .toFormat(format)
    .toBuffer();
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
    ...H264,
    ...(toneHz ? ['-c:a', 'aac', '-shortest'] : []),
  ]);
}

/** `seconds` of a sine tone as WAV (or MP3 for an `.mp3` path). */
export function testTone(out: string, seconds: number, hz: number): Buffer {
  return ffmpegFile(out, ['-f', 'lavfi', '-i', `sine=frequency=${hz}:duration=${seconds}`]);
}

// The clips below are written to a folder of this module (one per test
// file), made when the first is.
let clips: MediaDir | undefined;
let clipCount = 0;

/** A new path in the clips' folder. */
export function clipFile(extension: string): string {
  clips ??= mediaDir();
  return clips.file(`f${clipCount++}.${extension}`);
}

/** Removes the clips' folder (call in afterAll). */
export function removeClipFiles(): void {
  clips?.cleanup();
  clips = undefined;
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
  return ffmpegFile(clipFile('mp4'), [
    '-f',
    'lavfi',
    '-i',
    picture,
    ...(sound ? ['-f', 'lavfi', '-i', toneSource(seconds, sound === 'rising')] : []),
    ...H264,
    ...(sound ? ['-c:a', 'aac'] : []),
    '-movflags',
    '+faststart',
  ]);
}

/**
 * An MP4 showing each colour in turn (320×240, 25 fps) for `each` seconds,
 * or for its own entry of `durations`, with a tone under it when `sound`.
 */
export function stripes(
  colours: string[],
  { each = 1, durations, sound = false }: { each?: number; durations?: number[]; sound?: boolean } = {},
): Buffer {
  const lengths = colours.map((_, i) => durations?.[i] ?? each);
  const seconds = lengths.reduce((a, b) => a + b, 0);
  return ffmpegFile(clipFile('mp4'), [
    ...colours.flatMap((c, i) => ['-f', 'lavfi', '-i', `color=c=${c}:s=320x240:r=25:d=${lengths[i]}`]),
    ...(sound ? ['-f', 'lavfi', '-i', toneSource(seconds)] : []),
    '-filter_complex',
    `${colours.map((_, i) => `[${i}:v]`).join('')}concat=n=${colours.length}:v=1:a=0[v]`,
    '-map',
    '[v]',
    ...(sound ? ['-map', `${colours.length}:a`, '-c:a', 'aac'] : []),
    ...H264,
  ]);
}

/** A WAV tone. */
export function tone(seconds = 2, rising = false): Buffer {
  return ffmpegFile(clipFile('wav'), ['-f', 'lavfi', '-i', toneSource(seconds, rising)]);
}

/** Sound alone in an MP4 (AAC): uploaded, it is taken for a video. */
export function soundOnlyMp4(seconds = 2): Buffer {
  return ffmpegFile(clipFile('mp4'), ['-f', 'lavfi', '-i', toneSource(seconds), '-c:a', 'aac']);
}

/** A file that declares itself an MP4 and is not one. */
export const CORRUPT_MP4 = Buffer.concat([
  Buffer.from('000000186674797069736f6d0000020069736f6d6d703431', 'hex'),
  Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256)),
]);
