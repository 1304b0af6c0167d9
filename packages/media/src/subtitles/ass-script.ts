import type { Subtitles } from './parse-subtitles';

// Subtitles as an ASS script for libass (ffmpeg's `ass` filter): one style,
// in the video's own pixels (PlayRes = its size), so font_size is pixels.
// Sizes and margins follow the video's, so that captions read the same on a
// phone's vertical clip as on a landscape one: bold, in a dark outline with a
// soft shadow, legible on any picture.

export interface SubtitleStyle {
  /** Pixels (libass: the height of a line, accents to descenders); absent: defaultSubtitleSize. */
  fontSize?: number;
  /** Hex `#rrggbb`, `rrggbb` or `#rgb`. */
  color: string;
  position: 'bottom' | 'top';
  width: number;
  height: number;
}

/** libass finds it through fontconfig; the worker image installs it. */
export const SUBTITLE_FONT = 'DejaVu Sans';

/** Longer than any video a node may process: plain text stays until the end. */
const FOREVER_MS = 10 * 3_600_000 - 10;

/**
 * The font size subtitles get unless one is asked for: 5 % of the video's
 * height (short-form captions' 4–6 %), or a twelfth of its width when that is
 * less, so that a line of a tall, narrow video still holds some 16 characters.
 */
export function defaultSubtitleSize(width: number, height: number): number {
  return Math.max(8, Math.round(Math.min(height * 0.05, width / 12)));
}

/**
 * Distance from the top or bottom edge: 5 % of the height, 10 % on a portrait
 * video, whose players (short-form apps) draw their controls over its bottom.
 */
function verticalMargin(width: number, height: number): number {
  return Math.round(height * (height > width ? 0.1 : 0.05));
}

/** Half-transparent black: the shadow under the outline. */
const SHADOW_COLOUR = '&H80000000';

export function assScript(subtitles: Subtitles, style: SubtitleStyle): string {
  const cues =
    subtitles.format === 'plain' ? [{ startMs: 0, endMs: FOREVER_MS, text: subtitles.text }] : subtitles.cues;
  // Numpad alignment: 2 bottom centre, 8 top centre.
  const alignment = style.position === 'top' ? 8 : 2;
  const fontSize = style.fontSize ?? defaultSubtitleSize(style.width, style.height);
  const outline = Math.max(1, Math.round(fontSize / 12));
  const shadow = Math.round(fontSize / 30);
  const marginV = verticalMargin(style.width, style.height);
  const marginH = Math.round(style.width * 0.05);
  const colour = assColour(style.color);
  return [
    '[Script Info]',
    'ScriptType: v4.00+',
    `PlayResX: ${style.width}`,
    `PlayResY: ${style.height}`,
    'WrapStyle: 0',
    'ScaledBorderAndShadow: yes',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, ' +
      'Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, ' +
      'MarginR, MarginV, Encoding',
    // Bold (-1); BorderStyle 1: an outline of `outline` pixels in OutlineColour, a shadow in BackColour.
    `Style: Default,${SUBTITLE_FONT},${fontSize},${colour},${colour},&H00000000,${SHADOW_COLOUR},-1,0,0,0,100,100,0,0,` +
      `1,${outline},${shadow},${alignment},${marginH},${marginH},${marginV},1`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    ...cues.map((c) => `Dialogue: 0,${assTime(c.startMs)},${assTime(c.endMs)},Default,,0,0,0,,${assText(c.text)}`),
    '',
  ].join('\n');
}

/** `&HAABBGGRR` (alpha 00: opaque) from hex RGB. */
export function assColour(hex: string): string {
  let rgb = hex.replace(/^#/, '');
  if (rgb.length === 3) rgb = [...rgb].map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((i) => rgb.slice(i, i + 2).toUpperCase());
  return `&H00${b}${g}${r}`;
}

/** h:mm:ss.cc */
function assTime(ms: number): string {
  const cs = Math.round(ms / 10);
  const h = Math.floor(cs / 360_000);
  const m = Math.floor(cs / 6000) % 60;
  const s = Math.floor(cs / 100) % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${h}:${pad(m)}:${pad(s)}.${pad(cs % 100)}`;
}

/**
 * The text as libass shows it literally: a backslash is kept from starting an
 * escape (\N, \h) by a word joiner after it, braces (override blocks) are
 * escaped, line breaks become \N.
 */
export function assText(text: string): string {
  return text
    .replace(/\\/g, '\\\u2060')
    .replace(/[{}]/g, (c) => `\\${c}`)
    .split('\n')
    .join('\\N');
}
