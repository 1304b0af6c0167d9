import sharp from 'sharp';

// match_brand_colors done bare, as the benchmark's reference: each pixel
// replaced by the palette colour nearest to it by CIEDE2000, computed once
// per distinct colour.

type Lab = [number, number, number];

function linear(c: number): number {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

function labOf(r: number, g: number, b: number): Lab {
  const [lr, lg, lb] = [linear(r), linear(g), linear(b)];
  const x = (0.4124 * lr + 0.3576 * lg + 0.1805 * lb) / 0.95047;
  const y = 0.2126 * lr + 0.7152 * lg + 0.0722 * lb;
  const z = (0.0193 * lr + 0.1192 * lg + 0.9505 * lb) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

const deg = Math.PI / 180;

/** CIEDE2000 colour difference (Sharma, Wu, Dalal 2005). */
export function ciede2000([l1, a1, b1]: Lab, [l2, a2, b2]: Lab): number {
  const c1 = Math.hypot(a1, b1);
  const c2 = Math.hypot(a2, b2);
  const cm = (c1 + c2) / 2;
  const g = 0.5 * (1 - Math.sqrt(cm ** 7 / (cm ** 7 + 25 ** 7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const c1p = Math.hypot(a1p, b1);
  const c2p = Math.hypot(a2p, b2);
  const h = (b: number, a: number) => (b === 0 && a === 0 ? 0 : (Math.atan2(b, a) / deg + 360) % 360);
  const h1p = h(b1, a1p);
  const h2p = h(b2, a2p);
  const dl = l2 - l1;
  const dc = c2p - c1p;
  let dh = 0;
  if (c1p * c2p !== 0)
    dh = Math.abs(h2p - h1p) <= 180 ? h2p - h1p : h2p - h1p > 180 ? h2p - h1p - 360 : h2p - h1p + 360;
  const dH = 2 * Math.sqrt(c1p * c2p) * Math.sin((dh / 2) * deg);
  const lm = (l1 + l2) / 2;
  const cmp = (c1p + c2p) / 2;
  let hm = h1p + h2p;
  if (c1p * c2p !== 0) hm = Math.abs(h1p - h2p) <= 180 ? hm / 2 : hm < 360 ? (hm + 360) / 2 : (hm - 360) / 2;
  const t =
    1 -
    0.17 * Math.cos((hm - 30) * deg) +
    0.24 * Math.cos(2 * hm * deg) +
    0.32 * Math.cos((3 * hm + 6) * deg) -
    0.2 * Math.cos((4 * hm - 63) * deg);
  const sl = 1 + (0.015 * (lm - 50) ** 2) / Math.sqrt(20 + (lm - 50) ** 2);
  const sc = 1 + 0.045 * cmp;
  const sh = 1 + 0.015 * cmp * t;
  const rt = -2 * Math.sqrt(cmp ** 7 / (cmp ** 7 + 25 ** 7)) * Math.sin(60 * Math.exp(-(((hm - 275) / 25) ** 2)) * deg);
  return Math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dH / sh) ** 2 + rt * (dc / sc) * (dH / sh));
}

function rgbOf(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The image with every pixel mapped onto `palette` (hex colours), as PNG. */
export async function mapToPalette(image: Buffer, palette: string[]): Promise<Buffer> {
  const colours = palette.map(rgbOf);
  const labs = colours.map(([r, g, b]) => labOf(r, g, b));
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const nearest = new Map<number, number>();
  for (let i = 0; i < data.length; i += 3) {
    const key = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
    let best = nearest.get(key);
    if (best === undefined) {
      const lab = labOf(data[i]!, data[i + 1]!, data[i + 2]!);
      best = 0;
      for (let p = 1; p < labs.length; p++) if (ciede2000(lab, labs[p]!) < ciede2000(lab, labs[best]!)) best = p;
      nearest.set(key, best);
    }
    const [r, g, b] = colours[best]!;
    data[i] = r;
    data[i + 1] = g;
    data[i + 2] = b;
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .png()
    .toBuffer();
}
