import { evenFrameFilters, evenSize } from './even-frame';
import { chain, num } from './filter-graph';
import { keepAudioRanges, keepVideoRanges, keptDuration, mergeRanges } from './keep-ranges';
import { atempoFilters } from './speed-filters';

test('atempo is chained in steps of at most 2× either way', () => {
  expect(atempoFilters(1)).toEqual([]);
  expect(atempoFilters(1.5)).toEqual(['atempo=1.5']);
  expect(atempoFilters(4)).toEqual(['atempo=2', 'atempo=2']);
  expect(atempoFilters(3)).toEqual(['atempo=2', 'atempo=1.5']);
  expect(atempoFilters(0.25)).toEqual(['atempo=0.5', 'atempo=0.5']);
  expect(atempoFilters(0.3)).toEqual(['atempo=0.5', 'atempo=0.6']);
});

test('ranges are sorted and overlapping or touching ones joined', () => {
  expect(
    mergeRanges([
      [3, 4],
      [0, 1],
      [0.5, 1.5],
      [1.5, 2],
    ]),
  ).toEqual([
    [0, 2],
    [3, 4],
  ]);
  expect(
    keptDuration([
      [3, 4],
      [0, 1],
      [0.5, 1.5],
    ]),
  ).toBe(2.5);
});

test('kept video frames are moved back by the time cut before them', () => {
  expect(
    keepVideoRanges([
      [3, 4],
      [1, 2],
    ]),
  ).toEqual(["select='gte(t,1)*lt(t,2)+gte(t,3)*lt(t,4)'", "setpts='PTS-(1*gte(T,1)+1*gte(T,3))/TB'"]);
});

test('kept audio is trimmed per range and the pieces joined', () => {
  expect(keepAudioRanges('0:a:0', [[0, 1]], 'out')).toEqual(['[0:a:0]atrim=start=0:end=1,asetpts=PTS-STARTPTS[out]']);
  expect(
    keepAudioRanges(
      'in',
      [
        [2, 3],
        [0, 1],
      ],
      'out',
    ),
  ).toEqual([
    '[in]asplit=2[out_0][out_1]',
    '[out_0]atrim=start=0:end=1,asetpts=PTS-STARTPTS[out_t0]',
    '[out_1]atrim=start=2:end=3,asetpts=PTS-STARTPTS[out_t1]',
    '[out_t0][out_t1]concat=n=2:v=0:a=1[out]',
  ]);
});

test('numbers never reach a graph in exponent notation', () => {
  expect(num(1e-7)).toBe('0');
  expect(num(0.1 + 0.2)).toBe('0.3');
  expect(num(86_400)).toBe('86400');
});

test('odd frame sizes lose a row or column; a filter-less chain passes through', () => {
  expect(evenSize(101, 60)).toEqual({ width: 100, height: 60 });
  expect(evenFrameFilters(320, 240)).toEqual([]);
  expect(evenFrameFilters(321, 241)).toEqual(['crop=320:240:0:0']);
  expect(chain(['0:1'], [], ['v'])).toBe('[0:1]null[v]');
  expect(chain(['1:a:0'], [], ['a'], 'audio')).toBe('[1:a:0]anull[a]');
});
