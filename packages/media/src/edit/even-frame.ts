import { num } from './filter-graph';

// H.264 in yuv420p stores colour at half resolution: both sides of a frame
// must be even. An odd side loses its last pixel row or column.

/** The frame size an encoded video of width × height gets. */
export function evenSize(width: number, height: number): { width: number; height: number } {
  return { width: Math.max(2, width - (width % 2)), height: Math.max(2, height - (height % 2)) };
}

/** The filters that make a width × height frame even (none when it is). */
export function evenFrameFilters(width: number, height: number): string[] {
  const even = evenSize(width, height);
  if (even.width === width && even.height === height) return [];
  return [`crop=${num(even.width)}:${num(even.height)}:0:0`];
}
