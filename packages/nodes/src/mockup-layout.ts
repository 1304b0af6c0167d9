import type { DeviceFrame } from './device-frames';

// Where screen_mockup puts things, in the mockup's pixels. The screenshot is
// never scaled: the frame is scaled to it, so that its screen holds the whole
// screenshot at 1:1, centred. A screenshot of another shape than the screen
// (a portrait one on a laptop) leaves bars of the screen's colour beside or
// above and below it.

/** Background around the device, as a share of its longer side. */
const PADDING = 0.08;

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface MockupLayout {
  width: number;
  height: number;
  /** The device, drawn from its frame. */
  frame: Box;
  /** Its screen, in the frame's screen colour, with rounded corners of `radius` pixels. */
  screen: Box & { radius: number };
  /** The screenshot, at its own size. */
  shot: Box;
}

export function mockupLayout(frame: DeviceFrame, shot: { width: number; height: number }): MockupLayout {
  // The largest square a corner's rounding leaves clear: inside it the screenshot's corners are not cut.
  const inset = frame.screen.radius * (1 - Math.SQRT1_2);
  const scale = Math.max(
    shot.width / (frame.screen.width - 2 * inset),
    shot.height / (frame.screen.height - 2 * inset),
  );
  const px = (units: number) => Math.round(units * scale);
  const pad = px(Math.max(frame.width, frame.height) * PADDING);
  const insetPx = Math.ceil(inset * scale);
  // At least the screenshot (and its inset) whatever the rounding of the frame's units.
  const screen = {
    left: pad + px(frame.screen.x),
    top: pad + px(frame.screen.y),
    width: Math.max(px(frame.screen.width), shot.width + 2 * insetPx),
    height: Math.max(px(frame.screen.height), shot.height + 2 * insetPx),
    radius: frame.screen.radius * scale,
  };
  const device = { left: pad, top: pad, width: px(frame.width), height: px(frame.height) };
  return {
    width: Math.max(device.width + 2 * pad, screen.left + screen.width),
    height: Math.max(device.height + 2 * pad, screen.top + screen.height),
    frame: device,
    screen,
    shot: {
      left: screen.left + Math.floor((screen.width - shot.width) / 2),
      top: screen.top + Math.floor((screen.height - shot.height) / 2),
      width: shot.width,
      height: shot.height,
    },
  };
}
