import { URL_INPUT, runFfmpeg, type FfmpegRun } from './video';

/** Audio codecs an MP4 carries as they are; any other is encoded to AAC. */
const MP4_AUDIO = new Set(['aac', 'mp3', 'opus', 'alac', 'flac', 'ac3', 'eac3']);

export interface OverlayJob {
  /** The video's presigned URL. */
  url: string;
  /** Its video track (probeMedia's videoStream). */
  videoStream: number;
  /** Its audio codec, when it has sound (probeMedia's `audio_codec`). */
  audioCodec?: string | undefined;
  /** A PNG the worker wrote itself (never a user's file), drawn on every frame. */
  imagePath: string;
  left: number;
  top: number;
  /** The MP4 written. */
  output: string;
}

/**
 * Draws a still image over every frame of a video into an H.264 MP4: the
 * frames are re-encoded, the sound copied as it is (or encoded to AAC when
 * MP4 cannot carry its codec). The PNG is read as a local file: only the
 * video, from the store, goes through URL_INPUT's protocol whitelist.
 */
export async function overlayImageOnVideo(run: FfmpegRun, job: OverlayJob): Promise<void> {
  const audio = job.audioCodec && MP4_AUDIO.has(job.audioCodec) ? 'copy' : 'aac';
  await runFfmpeg(run, [
    ...URL_INPUT,
    '-i',
    job.url,
    '-i',
    job.imagePath,
    '-filter_complex',
    // yuv420p (what players expect of H.264) needs even sides.
    `[0:${job.videoStream}][1:v]overlay=${job.left}:${job.top}:format=auto,` +
      `scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p[v]`,
    '-map',
    '[v]',
    '-map',
    '0:a:0?',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '20',
    '-c:a',
    audio,
    '-movflags',
    '+faststart',
    job.output,
  ]);
}
