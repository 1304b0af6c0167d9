import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assScript, assText, defaultSubtitleSize, type SubtitleStyle } from './ass-script';
import { burnSubtitlesArgs } from './burn-subtitles';
import { parseSubtitles, SubtitleSyntaxError } from './parse-subtitles';

describe('parseSubtitles', () => {
  test('SRT, WebVTT (BOM, CRLF, identifiers, notes, markup) and plain text', () => {
    expect(parseSubtitles('1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hi</i>\r\nthere\r\n')).toEqual({
      format: 'srt',
      cues: [{ startMs: 1000, endMs: 2500, text: 'Hi\nthere' }],
    });
    expect(
      parseSubtitles('\uFEFFWEBVTT\n\nNOTE x\n\nintro\n00:01.000 --> 00:02.000 align:start\n<v A>a &amp; b</v>\n'),
    ).toEqual({ format: 'vtt', cues: [{ startMs: 1000, endMs: 2000, text: 'a & b' }] });
    expect(parseSubtitles('  Step 1 --> step 2\n')).toEqual({ format: 'plain', text: 'Step 1 --> step 2' });
  });

  test.each([
    ['1\n00:00:01,000 -->\nHi\n', /^SRT: /],
    ['1\n00:00:03,000 --> 00:00:02,000\nHi\n', /cue 1 ends before it starts/],
    ['WEBVTT\n\n00:01.000 --> 00:02\nHi\n', /^WebVTT, line 3: /],
    ['WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n\nstray\n', /^WebVTT, line \d+: Cue identifier cannot be standalone/],
    ['WEBVTT\n', /no cue/],
  ])('refuses %j', (text, why) => {
    expect(() => parseSubtitles(text)).toThrow(SubtitleSyntaxError);
    expect(() => parseSubtitles(text)).toThrow(why);
  });
});

test('assText keeps backslashes, braces and line breaks from being read as ASS', () => {
  expect(assText('a\\Nb {c}\nd')).toBe('a\\\u2060Nb \\{c\\}\\Nd');
});

test('the ass filter reads a script whose path has colons, quotes and commas', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "weft-ass-a:b',c["));
  try {
    const script = path.join(dir, 'subs.ass');
    const style = { fontSize: 40, color: '#fff', position: 'bottom' as const, width: 64, height: 64 };
    fs.writeFileSync(script, assScript({ format: 'plain', text: 'W' }, style));
    const args = burnSubtitlesArgs({ video: { url: 'unused', stream: 0 }, scriptPath: script, output: 'unused' });
    const graph = args[args.indexOf('-filter_complex') + 1]!;
    const source = ['-f', 'lavfi', '-i', 'color=c=black:size=64x64:duration=0.1'];
    const out = ['-map', '[v]', '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
    const run = spawnSync('ffmpeg', ['-v', 'error', ...source, '-filter_complex', graph, ...out]);
    expect(run.stderr.toString()).toBe('');
    // The W is drawn: white pixels on the black frame.
    expect([...run.stdout].filter((v) => v > 200).length).toBeGreaterThan(20);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('the style follows the video: sizes and margins in proportion to it, an outline and a shadow', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-ass-style-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** One frame of `background` with `text` burnt in by the node's filter, as grey levels. */
  function render(width: number, height: number, style: Partial<SubtitleStyle>, background = 'black', text = 'ÉHgy') {
    const script = path.join(dir, `${width}x${height}-${style.fontSize ?? 'default'}-${background}.ass`);
    const full = { color: '#ffffff', position: 'bottom' as const, width, height, ...style };
    fs.writeFileSync(script, assScript({ format: 'plain', text }, full));
    const args = burnSubtitlesArgs({ video: { url: 'unused', stream: 0 }, scriptPath: script, output: 'unused' });
    const graph = args[args.indexOf('-filter_complex') + 1]!;
    const source = ['-f', 'lavfi', '-i', `color=c=${background}:size=${width}x${height}:duration=0.1`];
    const out = ['-map', '[v]', '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
    const run = spawnSync('ffmpeg', ['-v', 'error', ...source, '-filter_complex', graph, ...out], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.stderr.toString()).toBe('');
    return run.stdout;
  }

  /** The rows from the first to the last holding a pixel `which` says is text. */
  function rows(frame: Buffer, width: number, which: (v: number) => boolean) {
    let top = Infinity;
    let bottom = -Infinity;
    frame.forEach((v, i) => {
      if (!which(v)) return;
      const y = Math.floor(i / width);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    });
    return { top, bottom, height: bottom - top + 1 };
  }

  /** The white glyphs' rows (accent to descender) on black: the line's height, outline and shadow left out. */
  const glyphs = (width: number, height: number, style: Partial<SubtitleStyle> = {}) =>
    rows(render(width, height, style), width, (v) => v > 160);

  test('by default the line is about 5 % of the height: of a 1080×1920 video as of a 1920×1080 one', () => {
    expect(defaultSubtitleSize(1080, 1920)).toBe(90);
    expect(defaultSubtitleSize(1920, 1080)).toBe(54);
    const vertical = glyphs(1080, 1920);
    const landscape = glyphs(1920, 1080);
    for (const [line, height] of [
      [vertical.height, 1920],
      [landscape.height, 1080],
    ] as const) {
      expect(line / height).toBeGreaterThan(0.04);
      expect(line / height).toBeLessThan(0.06);
    }
    // 36 pixels, a fixed default, would be under 2 % of the vertical video.
    expect(vertical.height).toBeGreaterThan(2.2 * glyphs(1080, 1920, { fontSize: 36 }).height);
  });

  test('an explicit font size is used as given, whatever the video', () => {
    const inVertical = glyphs(1080, 1920, { fontSize: 36 });
    expect(glyphs(1920, 1080, { fontSize: 36 }).height).toBe(inVertical.height);
    expect(Math.abs(inVertical.height - 36)).toBeLessThanOrEqual(3);
    expect(Math.abs(glyphs(1080, 1920, { fontSize: 72 }).height - 2 * inVertical.height)).toBeLessThanOrEqual(3);
    // The default is the size it names.
    expect(glyphs(1080, 1920)).toEqual(glyphs(1080, 1920, { fontSize: 90 }));
    const style = assScript(
      { format: 'plain', text: 'x' },
      { fontSize: 36, color: '#fff', position: 'bottom', width: 1080, height: 1920 },
    );
    expect(style).toMatch(/^Style: Default,DejaVu Sans,36,/m);
  });

  test('the margin follows the height: 5 % of a landscape video, 10 % of a portrait one', () => {
    // The descender of the g and the y reaches about a fifth of the line below the baseline.
    expect(1080 - glyphs(1920, 1080).bottom).toBeGreaterThanOrEqual(0.05 * 1080);
    expect(1080 - glyphs(1920, 1080).bottom).toBeLessThan(0.07 * 1080);
    expect(1920 - glyphs(1080, 1920).bottom).toBeGreaterThanOrEqual(0.1 * 1920);
    expect(1920 - glyphs(1080, 1920).bottom).toBeLessThan(0.12 * 1920);
  });

  test('white text reads on white: a dark outline and shadow around its glyphs', () => {
    const onBlack = glyphs(1080, 1920);
    const onWhite = render(1080, 1920, {}, 'white');
    const dark = rows(onWhite, 1080, (v) => v < 60);
    // The outline surrounds the glyphs: a few pixels above and below them.
    expect(dark.top).toBeLessThan(onBlack.top - 3);
    expect(dark.bottom).toBeGreaterThan(onBlack.bottom + 3);
    const darkPixels = [...onWhite].filter((v) => v < 60).length;
    const glyphPixels = [...render(1080, 1920, {})].filter((v) => v > 160).length;
    expect(darkPixels).toBeGreaterThan(0.5 * glyphPixels);
  });
});
