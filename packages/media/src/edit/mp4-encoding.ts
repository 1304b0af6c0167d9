// How every video a media node produces is encoded: H.264 and AAC in an MP4
// that starts playing before it is fully downloaded. yuv420p and even sizes
// (see even-frame.ts) are what browsers and phones decode.

/** Output options for H.264/AAC MP4 (put before the output path). */
export const H264_AAC_MP4: readonly string[] = [
  '-c:v',
  'libx264',
  // veryfast: most of medium's quality at a third of its CPU, on a worker that shares its cores.
  '-preset',
  'veryfast',
  '-crf',
  '20',
  '-pix_fmt',
  'yuv420p',
  '-c:a',
  'aac',
  '-b:a',
  '160k',
  '-movflags',
  '+faststart',
];

/** What a produced MP4 is stored as. */
export const MP4_OUTPUT = { contentType: 'video/mp4', mediaType: 'video', extension: 'mp4' } as const;

/** The codec names ffprobe reports for what H264_AAC_MP4 writes (output metadata). */
export const MP4_CODECS = { video: 'h264', audio: 'aac' } as const;
