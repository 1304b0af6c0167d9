// The device frames screen_mockup draws screenshots into, drawn here as SVG
// (no third-party artwork). They are TypeScript rather than .svg files so that
// they ship inside the worker's bundle as they are (no file to copy beside it)
// and load the same under jest, tsx and esbuild.

export type Device = 'phone' | 'tablet' | 'laptop' | 'browser';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DeviceFrame {
  /** The frame's own size, in its units (the SVGs' viewBox). */
  width: number;
  height: number;
  /** Where the screenshot goes, in the frame's units, and its corner radius. */
  screen: Rect & { radius: number };
  /** What the screen shows around a screenshot of another shape than its own. */
  screenColor: string;
  /** What is drawn under the screenshot: the body of the device. Nothing is drawn over it. */
  body: string;
  /** Held either way (phone, tablet): turned on its side for a landscape screenshot. */
  turns: boolean;
}

const FRAMES: Record<Device, DeviceFrame> = {
  phone: {
    width: 430,
    height: 880,
    screen: { x: 20, y: 20, width: 390, height: 840, radius: 40 },
    screenColor: '#000000',
    body: `
      <rect x="0" y="0" width="430" height="880" rx="62" fill="#111827"/>
      <rect x="4" y="4" width="422" height="872" rx="58" fill="none" stroke="#374151" stroke-width="3"/>
      <rect x="-3" y="170" width="5" height="60" rx="2" fill="#1f2937"/>
      <rect x="428" y="220" width="5" height="90" rx="2" fill="#1f2937"/>
      <circle cx="215" cy="11" r="4" fill="#000000"/>`,
    turns: true,
  },
  tablet: {
    width: 900,
    height: 1200,
    screen: { x: 40, y: 40, width: 820, height: 1120, radius: 14 },
    screenColor: '#000000',
    body: `
      <rect x="0" y="0" width="900" height="1200" rx="56" fill="#1f2937"/>
      <rect x="5" y="5" width="890" height="1190" rx="52" fill="none" stroke="#4b5563" stroke-width="3"/>
      <circle cx="450" cy="21" r="6" fill="#0b0f19"/>`,
    turns: true,
  },
  laptop: {
    width: 1400,
    height: 880,
    screen: { x: 130, y: 32, width: 1140, height: 712, radius: 4 },
    screenColor: '#000000',
    body: `
      <rect x="100" y="0" width="1200" height="790" rx="30" fill="#111827"/>
      <rect x="104" y="4" width="1192" height="782" rx="27" fill="none" stroke="#374151" stroke-width="3"/>
      <circle cx="700" cy="16" r="5" fill="#374151"/>
      <path d="M0 790 H1400 V818 Q1400 848 1370 852 L1280 872 Q1260 880 1230 880 H170 Q140 880 120 872 L30 852 Q0 848 0 818 Z" fill="#9ca3af"/>
      <rect x="600" y="790" width="200" height="14" rx="7" fill="#6b7280"/>`,
    turns: false,
  },
  browser: {
    width: 1280,
    height: 840,
    screen: { x: 1, y: 49, width: 1278, height: 790, radius: 0 },
    screenColor: '#ffffff',
    body: `
      <rect x="0" y="0" width="1280" height="840" rx="10" fill="#e5e7eb"/>
      <rect x="0.5" y="0.5" width="1279" height="839" rx="10" fill="none" stroke="#9ca3af"/>
      <circle cx="24" cy="24" r="7" fill="#ef4444"/>
      <circle cx="48" cy="24" r="7" fill="#f59e0b"/>
      <circle cx="72" cy="24" r="7" fill="#22c55e"/>
      <rect x="110" y="11" width="1060" height="26" rx="13" fill="#ffffff"/>`,
    turns: false,
  },
};

/**
 * The frame of `device` for a screenshot of `width` × `height`: a phone or a
 * tablet is turned a quarter left (its camera on the left) for a landscape
 * screenshot; a laptop or a browser stays as it is.
 */
export function deviceFrame(device: Device, { width, height }: { width: number; height: number }): DeviceFrame {
  const frame = FRAMES[device];
  if (!frame.turns || width <= height) return frame;
  const { screen } = frame;
  return {
    ...frame,
    width: frame.height,
    height: frame.width,
    screen: {
      ...screen,
      x: screen.y,
      y: frame.width - screen.x - screen.width,
      width: screen.height,
      height: screen.width,
    },
    // (x, y) → (y, frame.width − x)
    body: `<g transform="translate(0 ${frame.width}) rotate(-90)">${frame.body}</g>`,
  };
}

/** An SVG document drawing `content` (in frame units) on `width` × `height` pixels. */
export function frameSvg(frame: DeviceFrame, content: string, width: number, height: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${frame.width} ${frame.height}">${content}</svg>`,
  );
}
