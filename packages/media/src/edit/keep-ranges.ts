import { chain, num } from './filter-graph';

// Keeping time ranges of a video ({cut: [[start, end], ...]}): the frames
// inside them, in the video's order, played one after another. Video frames
// are selected and retimed in one pass; audio is trimmed per range to the
// sample and the pieces joined. Both read the stream once, front to back, so
// nothing is buffered whatever the ranges.

export type Range = readonly [start: number, end: number];

/** The ranges in time order, overlapping or touching ones joined. */
export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** How long the kept ranges last together. */
export function keptDuration(ranges: readonly Range[]): number {
  return mergeRanges(ranges).reduce((sum, [start, end]) => sum + end - start, 0);
}

/**
 * Video filters keeping the frames in `ranges` ([start, end) each), each
 * moved back by the time cut before it.
 */
export function keepVideoRanges(ranges: readonly Range[]): string[] {
  const merged = mergeRanges(ranges);
  const inside = merged.map(([s, e]) => `gte(t,${num(s)})*lt(t,${num(e)})`).join('+');
  // The time cut before range i: its start minus the end of range i-1 (the start itself for the first).
  const removed = merged.map(([s], i) => `${num(i === 0 ? s : s - merged[i - 1]![1])}*gte(T,${num(s)})`).join('+');
  return [`select='${inside}'`, `setpts='PTS-(${removed})/TB'`];
}

/** Chains keeping `ranges` of the audio at label `input`, joined at label `output`. */
export function keepAudioRanges(input: string, ranges: readonly Range[], output: string): string[] {
  const merged = mergeRanges(ranges);
  const trim = ([s, e]: Range) => [`atrim=start=${num(s)}:end=${num(e)}`, 'asetpts=PTS-STARTPTS'];
  if (merged.length === 1) return [chain([input], trim(merged[0]!), [output], 'audio')];
  const pieces = merged.map((_, i) => `${output}_${i}`);
  const trimmed = merged.map((_, i) => `${output}_t${i}`);
  return [
    chain([input], [`asplit=${merged.length}`], pieces, 'audio'),
    ...merged.map((range, i) => chain([pieces[i]!], trim(range), [trimmed[i]!], 'audio')),
    chain(trimmed, [`concat=n=${merged.length}:v=0:a=1`], [output], 'audio'),
  ];
}
