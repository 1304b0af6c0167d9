// webvtt-parser has no types of its own; the reference makes ours visible to
// every project that compiles this file, not only to packages/media.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./webvtt-parser.d.ts" />
import { parseSync } from 'subtitle';
import { WebVTTParser } from 'webvtt-parser';

// video_subtitle's text: WebVTT, SRT, or plain text shown for the whole video.
// Each format is read by a maintained parser: webvtt-parser (the W3C
// validator's) for WebVTT, subtitle for SRT.

export interface SubtitleCue {
  startMs: number;
  endMs: number;
  /** Plain text, markup removed, lines separated by \n. */
  text: string;
}

export type Subtitles =
  | { format: 'vtt' | 'srt'; cues: SubtitleCue[] }
  /** Shown from the first frame to the last. */
  | { format: 'plain'; text: string };

/** Subtitle text that looks like WebVTT or SRT but is not; the message says where, safe to show. */
export class SubtitleSyntaxError extends Error {}

// A line starting with a timestamp and an arrow: a cue timing, whatever else
// the text is, so a text with one is SRT (or broken WebVTT), never prose.
const CUE_TIMING = /^\s*\d[\d:.,]*\s*-->/m;
// Markup of WebVTT (<b>, <c.class>, <v Name>, <00:01.000>) and SRT (<i>, <font color=...>).
const TAG = /<[^>\n]*>/g;
const VTT_ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&nbsp;': '\u00a0',
  '&lrm;': '\u200e',
  '&rlm;': '\u200f',
};

export function parseSubtitles(input: string): Subtitles {
  const text = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (/^WEBVTT(?:[ \t\n]|$)/.test(text)) return { format: 'vtt', cues: checked(parseVtt(text)) };
  if (CUE_TIMING.test(text)) return { format: 'srt', cues: checked(parseSrt(text)) };
  return { format: 'plain', text: text.trim() };
}

function parseVtt(text: string): SubtitleCue[] {
  const { cues, errors } = new WebVTTParser().parse(text, 'subtitles');
  const first = errors[0];
  if (first) throw new SubtitleSyntaxError(`WebVTT, line ${first.line}: ${first.message}`);
  return cues.map((cue) => ({
    startMs: Math.round(cue.startTime * 1000),
    endMs: Math.round(cue.endTime * 1000),
    text: cue.text.replace(TAG, '').replace(/&(amp|lt|gt|nbsp|lrm|rlm);/g, (e) => VTT_ENTITIES[e]!),
  }));
}

function parseSrt(text: string): SubtitleCue[] {
  let nodes: ReturnType<typeof parseSync>;
  try {
    nodes = parseSync(text);
  } catch (err) {
    throw new SubtitleSyntaxError(`SRT: ${(err as Error).message.slice(0, 200)}`);
  }
  return nodes.flatMap((node) =>
    node.type === 'cue'
      ? [{ startMs: node.data.start, endMs: node.data.end, text: node.data.text.replace(TAG, '') }]
      : [],
  );
}

function checked(cues: SubtitleCue[]): SubtitleCue[] {
  if (cues.length === 0) throw new SubtitleSyntaxError('no cue');
  for (const [i, cue] of cues.entries()) {
    if (!(cue.endMs > cue.startMs)) throw new SubtitleSyntaxError(`cue ${i + 1} ends before it starts`);
  }
  return cues;
}
