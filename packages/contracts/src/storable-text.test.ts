import { findUnstorableText } from './storable-text';

test('NUL and lone surrogates are found where they sit, in strings and keys', () => {
  expect(findUnstorableText({ a: ['ok', 'x\u0000y'] })).toMatchObject({ path: ['a', 1], type: 'string_nul' });
  expect(findUnstorableText({ a: 'high \ud800' })).toMatchObject({ path: ['a'], type: 'string_unicode' });
  expect(findUnstorableText(['\udc00 low'])).toMatchObject({ path: [0], type: 'string_unicode' });
  expect(findUnstorableText({ a: { ['k\ud800']: 1 } })).toMatchObject({ path: ['a', 'k\ud800'] });
  expect(findUnstorableText('reversed \udc00\ud800')).toMatchObject({ path: [], type: 'string_unicode' });
});

test('the first problem in document order is the one reported', () => {
  expect(findUnstorableText({ a: 'fine', b: ['\ud800'], c: '\u0000' })).toMatchObject({ path: ['b', 0] });
  expect(findUnstorableText({ a: { x: 1 }, ['\u0000']: 2 })).toMatchObject({ path: ['\u0000'] });
});

test('well-formed text, surrogate pairs included, is storable', () => {
  expect(findUnstorableText({ tea: '🍵 \ud83c\udf75', list: ['é', 1, null, true], ['emoji 😀']: {} })).toBeUndefined();
});

test('a deeply nested value is walked without exhausting the stack', () => {
  let deep: unknown = 'bottom \ud800';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  expect(findUnstorableText(deep)?.path).toHaveLength(100_000);
});
