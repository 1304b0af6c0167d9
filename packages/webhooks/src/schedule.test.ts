import { DEFAULT_RETRY_SCHEDULE, JITTER, parseRetrySchedule, retryDelay } from './schedule';

test('the default schedule retries for at least 24 hours, even with every delay cut by the jitter', () => {
  const delays = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
  expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000]);
  const shortest = delays.reduce((sum, d) => sum + retryDelay(delays, delays.indexOf(d), () => 0)!, 0);
  expect(shortest).toBeGreaterThanOrEqual(24 * 3_600_000);
  expect(shortest).toBe(Math.round(delays.reduce((a, b) => a + b) * (1 - JITTER)));
});

test('each delay moves by up to ±20 %, and none is left once the schedule has run out', () => {
  const delays = parseRetrySchedule('500ms, 10s,2m , 1h');
  expect(delays).toEqual([500, 10_000, 120_000, 3_600_000]);
  expect(retryDelay(delays, 1, () => 0)).toBe(8_000);
  expect(retryDelay(delays, 1, () => 0.5)).toBe(10_000);
  expect(retryDelay(delays, 1, () => 0.999_999)).toBe(12_000);
  expect(retryDelay(delays, 4)).toBeUndefined();
});

test.each([
  ['5', '"5" is not a delay such as 500ms, 5s, 5m or 2h'],
  ['5s,,5m', '"" is not a delay such as 500ms, 5s, 5m or 2h'],
  ['1d', '"1d" is not a delay such as 500ms, 5s, 5m or 2h'],
  [Array(51).fill('1s').join(','), 'at most 50 retries'],
])('WEBHOOK_RETRY_SCHEDULE %j is refused: %s', (text, message) => {
  expect(() => parseRetrySchedule(text)).toThrow(message);
});
