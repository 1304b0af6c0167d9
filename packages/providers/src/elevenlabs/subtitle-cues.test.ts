import { parseSubtitles } from '@weft/media';
import { srtOf, vttOf, type TimedWord } from './subtitle-cues';

const words = (...spec: [string, number, number][]): TimedWord[] =>
  spec.map(([text, start, end]) => ({ text, start, end }));

test('words close together make one cue, from the first start to the last end', () => {
  const srt = srtOf(words(['Hello', 0.1, 0.5], ['world.', 0.6, 1.25]));
  expect(srt).toBe('1\n00:00:00,100 --> 00:00:01,250\nHello world.\n');
});

test('a pause of a second, five seconds of speech or 42 characters start a new cue', () => {
  const long = 'abcdefghij';
  const cues = parseSubtitles(
    srtOf(
      words(
        ['after', 0, 0.4],
        ['pause', 1.5, 1.9],
        ...Array.from({ length: 5 }, (_, i): [string, number, number] => [long, 2 + i * 0.2, 2.1 + i * 0.2]),
        ['slow', 3.0, 7.7],
      ),
    ),
  );
  expect(cues).toMatchObject({
    format: 'srt',
    cues: [{ text: 'after' }, { text: `pause ${long} ${long} ${long}` }, { text: `${long} ${long}` }, { text: 'slow' }],
  });
});

test('WebVTT has its header and dotted times; hours are counted', () => {
  const vtt = vttOf(words(['late', 3725.5, 3726]));
  expect(vtt).toBe('WEBVTT\n\n01:02:05.500 --> 01:02:06.000\nlate\n');
  expect(parseSubtitles(vtt)).toMatchObject({
    format: 'vtt',
    cues: [{ startMs: 3_725_500, endMs: 3_726_000, text: 'late' }],
  });
});

test('spacing-only words are skipped; no words, no cues', () => {
  expect(srtOf(words([' ', 0, 0]))).toBe('');
  expect(vttOf([])).toBe('WEBVTT\n');
});
