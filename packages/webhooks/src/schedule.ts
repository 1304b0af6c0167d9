// When a delivery that did not get a 2xx is tried again (docs/api.md#webhooks):
// after each delay of the schedule in turn, each moved by up to ±20 % at random
// so that receivers coming back from an outage are not hit by every retry at
// once. The default lasts at least 25 hours even with every delay cut by 20 %.

export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `5s,5m,2h` (units ms, s, m, h) as milliseconds; throws an Error saying what is wrong. */
export function parseRetrySchedule(text: string): number[] {
  const delays = text.split(',').map((part) => {
    const match = /^\s*(\d+)\s*(ms|s|m|h)\s*$/.exec(part);
    if (!match) throw new Error(`"${part.trim()}" is not a delay such as 500ms, 5s, 5m or 2h`);
    return Number(match[1]) * UNITS[match[2]!]!;
  });
  if (delays.length > 50) throw new Error('at most 50 retries');
  return delays;
}

export const JITTER = 0.2;

/**
 * The delay before retry number `retry` (0: the first retry), or undefined
 * when the schedule has run out and the delivery fails.
 */
export function retryDelay(schedule: readonly number[], retry: number, random = Math.random): number | undefined {
  const base = schedule[retry];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
