import { URL_INPUT } from '../video';
import { assFilter } from './ass-filter';

// video_subtitle: the ASS script drawn onto every frame. The pixels change,
// so the video is encoded again, as H.264 in MP4; the sound is kept as it is
// when MP4 holds it, else encoded as AAC.

export interface BurnSubtitles {
  video: { url: string; stream: number; audioStream?: number; audioCodec?: string | null };
  scriptPath: string;
  /** An .mp4 file. */
  output: string;
}

const MP4_AUDIO = new Set(['aac', 'mp3', 'alac', 'opus']);

export function burnSubtitlesArgs(job: BurnSubtitles): string[] {
  const { video } = job;
  const sound =
    video.audioStream === undefined
      ? []
      : [
          '-map',
          `0:${video.audioStream}`,
          ...(MP4_AUDIO.has(video.audioCodec ?? '') ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '192k']),
        ];
  return [
    ...URL_INPUT,
    '-i',
    video.url,
    '-filter_complex',
    // 4:2:0 H.264 needs even sides.
    `[0:${video.stream}]${assFilter(job.scriptPath)},pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p[v]`,
    '-map',
    '[v]',
    ...sound,
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '18',
    '-movflags',
    '+faststart',
    job.output,
  ];
}
