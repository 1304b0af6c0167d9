// The file a node writes when it keeps a video's own stream (copied, not
// re-encoded): the input's container when it is one of these, so the copied
// stream fits it; Matroska, which holds nearly any codec, otherwise.

export interface VideoContainer {
  extension: string;
  contentType: string;
  /** ffmpeg's options for a sound encoded into this container. */
  audioCodec: readonly string[];
  /** Muxer options: MP4 and QuickTime get their index first, so players start before the end arrives. */
  muxer: readonly string[];
}

const AAC = ['-c:a', 'aac', '-b:a', '192k'];
const FASTSTART = ['-movflags', '+faststart'];

const CONTAINERS: Readonly<Record<string, VideoContainer>> = {
  mp4: { extension: 'mp4', contentType: 'video/mp4', audioCodec: AAC, muxer: FASTSTART },
  m4v: { extension: 'mp4', contentType: 'video/mp4', audioCodec: AAC, muxer: FASTSTART },
  mov: { extension: 'mov', contentType: 'video/quicktime', audioCodec: AAC, muxer: FASTSTART },
  webm: { extension: 'webm', contentType: 'video/webm', audioCodec: ['-c:a', 'libopus', '-b:a', '160k'], muxer: [] },
  mkv: { extension: 'mkv', contentType: 'video/x-matroska', audioCodec: AAC, muxer: [] },
};

/** The container for a copy of a video stored with `extension`. */
export function videoContainerFor(extension: string): VideoContainer {
  return CONTAINERS[extension.toLowerCase()] ?? CONTAINERS.mkv!;
}
