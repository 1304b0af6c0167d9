import { num } from './filter-graph';

// Playing media faster or slower. Video frames are retimed (the encoder then
// drops or repeats frames to keep the frame rate); audio goes through
// atempo, which keeps the pitch.

/** A factor atempo takes in one step; faster or slower factors are chained. */
const ATEMPO_MIN = 0.5;
const ATEMPO_MAX = 2;

/** The atempo filters that together play audio `speed` times as fast (none at 1). */
export function atempoFilters(speed: number): string[] {
  if (!(speed > 0)) throw new RangeError(`speed must be positive, got ${speed}`);
  const steps: string[] = [];
  let rest = speed;
  while (rest > ATEMPO_MAX) {
    steps.push(`atempo=${ATEMPO_MAX}`);
    rest /= ATEMPO_MAX;
  }
  while (rest < ATEMPO_MIN) {
    steps.push(`atempo=${ATEMPO_MIN}`);
    rest /= ATEMPO_MIN;
  }
  if (Math.abs(rest - 1) > 1e-9) steps.push(`atempo=${num(rest)}`);
  return steps;
}

/**
 * Filters that play a video track `speed` times as fast from its first frame,
 * at `frameRate` (the source's): frames are dropped or repeated here, so that
 * the track ends with the last one, not with copies of it.
 */
export function videoSpeedFilters(speed: number, frameRate?: number): string[] {
  return [`setpts=(PTS-STARTPTS)/${num(speed)}`, ...(frameRate ? [`fps=${num(frameRate)}`] : [])];
}

/**
 * Filters that play a sound track `speed` times as fast from its first
 * sample. atempo's output is off by a few ms at the end: when the result's
 * length (`seconds`) is known, it is padded or cut to exactly that.
 */
export function audioSpeedFilters(speed: number, seconds?: number): string[] {
  return [
    'asetpts=PTS-STARTPTS',
    ...atempoFilters(speed),
    ...(seconds !== undefined ? ['apad', `atrim=end=${num(seconds)}`] : []),
  ];
}
