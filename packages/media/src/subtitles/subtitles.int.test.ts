import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assScript, assText } from './ass-script';
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
