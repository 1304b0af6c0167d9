import { parseRange } from './byte-range';

describe('parseRange', () => {
  test.each([
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['bytes=50-5000', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-0', 0, 'unsatisfiable'],
    ['bytes=9-3', 100, undefined],
    ['bytes=0-1,4-5', 100, undefined],
    ['items=0-1', 100, undefined],
    ['bytes=-', 100, undefined],
    [undefined, 100, undefined],
  ])('%j of %i bytes → %j', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});
