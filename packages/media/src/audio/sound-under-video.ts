import { URL_INPUT } from '../video';
import { videoContainerFor, type VideoContainer } from './video-container';

// merge_audio_video and video_add_sound: a sound laid under a video.
//
// The video stream is copied whenever the video is kept whole, which is
// exact and costs nothing. Cutting a copied stream ends on a packet, not a
// frame (B-frames run a few frames past the cut), so when a shorter sound
// shortens the video, the video is re-encoded and cut at the sound's end.

export interface SoundUnderVideo {
  video: { url: string; stream: number; audioStream?: number; duration?: number };
  sound: { url: string; stream: number; duration?: number };
  /** replace: the sound alone; mix: the sound over the video's own (the sound alone when it has none). */
  mode: 'replace' | 'mix';
  /** Gain of the added sound, 1 as it is. */
  volume: number;
  /** shortest: ends with the shorter of both; video: the sound looped or cut to the video. */
  fit: 'shortest' | 'video';
  /** The stored video's extension: its container is kept when its stream is copied. */
  videoExtension: string;
  /** The file to write, without extension (the container's is added). */
  outputStem: string;
}

export interface SoundUnderVideoCommand {
  args: string[];
  output: string;
  container: VideoContainer;
  /** Whether the video stream is copied (else encoded as H.264). */
  copiesVideo: boolean;
  /** The result's length, when known. */
  duration?: number;
}

export function soundUnderVideo(job: SoundUnderVideo): SoundUnderVideoCommand {
  const { video, sound } = job;
  const cutsVideo =
    job.fit === 'shortest' &&
    video.duration !== undefined &&
    sound.duration !== undefined &&
    sound.duration < video.duration;
  const length = cutsVideo ? sound.duration : video.duration;
  const container = videoContainerFor(cutsVideo ? 'mp4' : job.videoExtension);
  const output = `${job.outputStem}.${container.extension}`;
  const added = `[1:${sound.stream}]volume=${job.volume}`;
  const sounds =
    job.mode === 'mix' && video.audioStream !== undefined
      ? // normalize=0: each input keeps its level, as when two sounds play at once.
        `${added}[s];[0:${video.audioStream}][s]amix=inputs=2:duration=longest:normalize=0[a]`
      : `${added}[a]`;
  // 4:2:0 H.264 needs even sides.
  const graph = cutsVideo ? `[0:${video.stream}]pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p[v];${sounds}` : sounds;
  const videoCodec = cutsVideo ? ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18'] : ['-c:v', 'copy'];
  const args = [
    ...URL_INPUT,
    '-i',
    video.url,
    // Looped from the store by seeking back to its start: never held in memory.
    ...(job.fit === 'video' ? ['-stream_loop', '-1'] : []),
    ...URL_INPUT,
    '-i',
    sound.url,
    '-filter_complex',
    graph,
    '-map',
    cutsVideo ? '[v]' : `0:${video.stream}`,
    '-map',
    '[a]',
    ...videoCodec,
    ...container.audioCodec,
    // -shortest ends the sound with the video it is under (looped, it never
    // ends by itself), but a few packets late: the known length cuts it exactly.
    ...(length !== undefined ? ['-t', String(length)] : []),
    '-shortest',
    ...container.muxer,
    output,
  ];
  return {
    args,
    output,
    container,
    copiesVideo: !cutsVideo,
    ...(length !== undefined ? { duration: length } : {}),
  };
}
