import { evenSize } from './even-frame';
import { num } from './filter-graph';

export interface FrameFormat {
  width: number;
  height: number;
  /** Frames per second. */
  frameRate: number;
}

/**
 * Filters that bring any video to `format`: scaled to fit inside it with its
 * aspect ratio kept, padded with black to fill it, square pixels, at its frame
 * rate. The size is made even (H.264 needs it).
 */
export function fitToFrame(format: FrameFormat): string[] {
  const { width, height } = evenSize(format.width, format.height);
  return [
    `scale=${width}:${height}:force_original_aspect_ratio=decrease`,
    `pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2:color=black`,
    'setsar=1',
    `fps=${num(format.frameRate)}`,
    'format=yuv420p',
  ];
}

/** Stereo 48 kHz: the audio format of everything joined, so that concat gets one format. */
export const COMMON_AUDIO = 'aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo';

/** Filters of a source of silence lasting `seconds`, in COMMON_AUDIO's format. */
export function silence(seconds: number): string[] {
  return ['anullsrc=r=48000:cl=stereo', `atrim=duration=${num(seconds)}`, 'aformat=sample_fmts=fltp'];
}
