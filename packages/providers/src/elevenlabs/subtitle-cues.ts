// Subtitles from a transcription's word timings: ElevenLabs answers words
// with their start and end, and SRT only as an extra export (no WebVTT), so
// both are built here alike, in cues short enough to read.

export interface TimedWord {
  text: string;
  start: number;
  end: number;
}

interface Cue {
  start: number;
  end: number;
  text: string;
}

/** A cue ends at this many characters, this many seconds, or a pause this long. */
const MAX_CHARS = 42;
const MAX_SECONDS = 5;
const PAUSE_SECONDS = 1;

function cuesOf(words: readonly TimedWord[]): Cue[] {
  const cues: Cue[] = [];
  let current: Cue | undefined;
  for (const word of words) {
    const text = word.text.trim();
    if (!text) continue;
    const fits =
      current &&
      current.text.length + 1 + text.length <= MAX_CHARS &&
      word.end - current.start <= MAX_SECONDS &&
      word.start - current.end < PAUSE_SECONDS;
    if (current && fits) {
      current.text += ` ${text}`;
      current.end = Math.max(current.end, word.end);
    } else {
      if (current) cues.push(current);
      current = { start: word.start, end: Math.max(word.end, word.start), text };
    }
  }
  if (current) cues.push(current);
  return cues;
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** SubRip text of the words. */
export function srtOf(words: readonly TimedWord[]): string {
  return cuesOf(words)
    .map((c, i) => `${i + 1}\n${timestamp(c.start, ',')} --> ${timestamp(c.end, ',')}\n${c.text}\n`)
    .join('\n');
}

/** WebVTT text of the words. */
export function vttOf(words: readonly TimedWord[]): string {
  const cues = cuesOf(words).map((c) => `${timestamp(c.start, '.')} --> ${timestamp(c.end, '.')}\n${c.text}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}
