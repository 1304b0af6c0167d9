import { execFileSync } from 'node:child_process';

// What ffprobe finds in a file a test downloaded.

export interface ProbedStream {
  index: number;
  codec_type: 'video' | 'audio' | string;
  codec_name: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  sample_rate?: string;
  duration?: string;
  bit_rate?: string;
  /** With `countFrames`: the frames decoded. */
  nb_read_frames?: string;
}

function ffprobe(file: string, countFrames = false): { streams: ProbedStream[]; format: { duration: string } } {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    ...(countFrames ? ['-count_frames'] : []),
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    file,
  ]);
  return JSON.parse(out.toString('utf8')) as { streams: ProbedStream[]; format: { duration: string } };
}

/** ffprobe's streams and format duration of a local file. */
export function probeFile(file: string): { streams: ProbedStream[]; duration: number } {
  const { streams, format } = ffprobe(file);
  return { streams, duration: Number(format.duration) };
}

export const streamOf = (file: string, type: 'video' | 'audio') =>
  probeFile(file).streams.find((s) => s.codec_type === type);

export interface Probed {
  width?: number;
  height?: number;
  frameRate?: number;
  /** Of the container. */
  duration: number;
  videoCodec?: string;
  audioCodec?: string;
  sampleRate?: number;
  /** Video frames in the file (counted by decoding). */
  frames?: number;
}

/** The first video and audio streams of a local file, summed up; its frames counted by decoding. */
export function probe(file: string): Probed {
  const json = ffprobe(file, true);
  const video = json.streams.find((s) => s.codec_type === 'video');
  const audio = json.streams.find((s) => s.codec_type === 'audio');
  const [num, den] = (video?.avg_frame_rate ?? '0/1').split('/').map(Number);
  return {
    duration: Number(json.format.duration),
    ...(video
      ? {
          width: video.width!,
          height: video.height!,
          frameRate: den ? num! / den : 0,
          videoCodec: video.codec_name,
          frames: Number(video.nb_read_frames),
        }
      : {}),
    ...(audio ? { audioCodec: audio.codec_name, sampleRate: Number(audio.sample_rate) } : {}),
  };
}

/** The size of every packet of the file's video stream, in order: equal lists mean a copied stream. */
export function videoPacketSizes(file: string): number[] {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=size',
    '-of',
    'csv=p=0',
    file,
  ]);
  return out.toString('utf8').trim().split('\n').map(Number);
}
