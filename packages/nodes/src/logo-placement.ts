import type { OpenedImage } from '@weft/media';

// Where and how large a logo goes on an image or a video frame (add_logo).

export type Corner = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right' | 'center';

export type LogoSettings = {
  position: Corner;
  /** Logo width ÷ base width. */
  scale: number;
  margin: number;
  opacity: number;
};

export interface PlacedLogo {
  /** RGBA pixels of the logo at its size, its alpha multiplied by the opacity. */
  rgba: Buffer;
  width: number;
  height: number;
  left: number;
  top: number;
}

/**
 * The logo scaled to `scale` of the base's width (smaller if it would be
 * taller than the base), at `position` `margin` pixels from the edges, kept
 * inside the base when the margin leaves no room.
 */
export async function placeLogo(
  logo: OpenedImage,
  base: { width: number; height: number },
  settings: LogoSettings,
): Promise<PlacedLogo> {
  const ratio = (logo.height ?? 1) / (logo.width ?? 1);
  let width = Math.max(1, Math.round(base.width * settings.scale));
  let height = Math.max(1, Math.round(width * ratio));
  if (height > base.height) {
    height = base.height;
    width = Math.max(1, Math.min(base.width, Math.round(height / ratio)));
  }
  const { data, info } = await logo
    .pipeline()
    .resize({ width, height, fit: 'fill' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (settings.opacity < 1) {
    for (let i = 3; i < data.length; i += 4) data[i] = Math.round(data[i]! * settings.opacity);
  }
  const spanX = base.width - info.width;
  const spanY = base.height - info.height;
  const clamp = (v: number, span: number) => Math.max(0, Math.min(span, v));
  const m = settings.margin;
  const left = settings.position.endsWith('left') ? m : settings.position.endsWith('right') ? spanX - m : spanX / 2;
  const top = settings.position.startsWith('top') ? m : settings.position.startsWith('bottom') ? spanY - m : spanY / 2;
  return {
    rgba: data,
    width: info.width,
    height: info.height,
    left: clamp(Math.round(left), spanX),
    top: clamp(Math.round(top), spanY),
  };
}
