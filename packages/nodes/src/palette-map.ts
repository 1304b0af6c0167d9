import { converter, differenceCiede2000, parse, type Lab65 } from 'culori';

// Each pixel onto its perceptually nearest palette colour (CIEDE2000 in
// CIELAB, D65), blended with the original by a strength.

const toLab = converter('lab65');
const distance = differenceCiede2000();

/** Pixels between two checks of the signal, and turns given back to the event loop (lock renewals). */
const CHUNK = 1 << 20;

export interface Palette {
  lab: Lab65[];
  rgb: [number, number, number][];
}

export function paletteOf(hexes: readonly string[]): Palette {
  const lab: Lab65[] = [];
  const rgb: [number, number, number][] = [];
  for (const hex of hexes) {
    const color = parse(hex)!;
    lab.push(toLab(color));
    const c = converter('rgb')(color);
    rgb.push([Math.round(c.r * 255), Math.round(c.g * 255), Math.round(c.b * 255)]);
  }
  return { lab, rgb };
}

function nearest(palette: Palette, r: number, g: number, b: number): number {
  const lab = toLab({ mode: 'rgb', r: r / 255, g: g / 255, b: b / 255 });
  let best = 0;
  let bestDistance = Infinity;
  for (let i = 0; i < palette.lab.length; i++) {
    const d = distance(lab, palette.lab[i]!);
    if (d < bestDistance) [best, bestDistance] = [i, d];
  }
  return best;
}

/**
 * Maps the RGBA pixels in place. The nearest colour of each distinct RGB value
 * is computed once (a photo has far fewer colours than pixels).
 */
export async function mapToPalette(rgba: Buffer, palette: Palette, strength: number, signal: AbortSignal) {
  // Index + 1 of the nearest palette colour of each 24-bit colour, 0 while unknown (16 MiB).
  const known = new Uint8Array(1 << 24);
  for (let start = 0; start < rgba.length; start += CHUNK * 4) {
    signal.throwIfAborted();
    const end = Math.min(rgba.length, start + CHUNK * 4);
    for (let i = start; i < end; i += 4) {
      const r = rgba[i]!;
      const g = rgba[i + 1]!;
      const b = rgba[i + 2]!;
      const key = (r << 16) | (g << 8) | b;
      let index = known[key]!;
      if (index === 0) index = known[key] = nearest(palette, r, g, b) + 1;
      const [pr, pg, pb] = palette.rgb[index - 1]!;
      rgba[i] = Math.round(r + (pr - r) * strength);
      rgba[i + 1] = Math.round(g + (pg - g) * strength);
      rgba[i + 2] = Math.round(b + (pb - b) * strength);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}
