import { spawnSync } from 'node:child_process';
import { ffmpeg } from './generate';

// How loud, and at what pitch, the sound of a downloaded file is.

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
  // volumedetect reports on standard error, which ffmpeg() does not return.
  const result = spawnSync(
    'ffmpeg',
    ['-nostdin', '-hide_banner', '-i', file, '-vn', '-af', filters.join(','), '-f', 'null', '-'],
    { encoding: 'utf8' },
  );
  const mean = /mean_volume: (-?[\d.]+|-inf) dB/.exec(result.stderr);
  if (!mean) throw new Error(`volumedetect found no sound in ${file}: ${result.stderr.slice(-500)}`);
  return mean[1] === '-inf' ? -Infinity : Number(mean[1]);
}

/** The file's sound from `from` (for `seconds`) as mono 16-bit samples. */
function samples(file: string, from: number, seconds?: number, rate?: number): Buffer {
  return ffmpeg([
    '-ss',
    String(from),
    ...(seconds !== undefined ? ['-t', String(seconds)] : []),
    '-i',
    file,
    '-vn',
    '-ac',
    '1',
    ...(rate !== undefined ? ['-ar', String(rate)] : []),
    '-f',
    's16le',
    '-acodec',
    'pcm_s16le',
    'pipe:1',
  ]);
}

/** The loudest sample of the file's sound, 0 (silence) to 1 (full scale). */
export function peakLevel(file: string, from = 0, seconds?: number): number {
  const pcm = samples(file, from, seconds);
  let peak = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
  return peak / 32768;
}

/** The strongest frequency of the sound between `from` and `from + seconds`, in Hz (zero crossings). */
export function pitchOf(file: string, from: number, seconds: number): number {
  const rate = 48_000;
  const pcm = samples(file, from, seconds, rate);
  let crossings = 0;
  for (let i = 2; i + 1 < pcm.length; i += 2) {
    if (pcm.readInt16LE(i - 2) < 0 !== pcm.readInt16LE(i) < 0) crossings++;
  }
  return crossings / 2 / (pcm.length / 2 / rate);
}
