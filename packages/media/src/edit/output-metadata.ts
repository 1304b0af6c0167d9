import { aspectRatio, type AssetMetadata } from '../image';
import { MP4_CODECS } from './mp4-encoding';

export interface ProducedVideo {
  width: number;
  height: number;
  /** Seconds, as the node computed it; unknown when undefined. */
  duration?: number | undefined;
  /** Unknown when undefined or 0. */
  frameRate?: number | undefined;
  /** Whether it has a sound track. */
  audio: boolean;
}

/**
 * The metadata of an MP4 a node wrote (H264_AAC_MP4): what the node knows of
 * it. The asset processing job adds what ffprobe finds, as for uploads.
 */
export function producedVideoMetadata(video: ProducedVideo): AssetMetadata {
  const metadata: AssetMetadata = { width: video.width, height: video.height, codec: MP4_CODECS.video };
  const ratio = aspectRatio(video.width, video.height);
  if (ratio) metadata.aspect_ratio = ratio;
  if (video.duration !== undefined) metadata.duration = Math.round(video.duration * 1000) / 1000;
  if (video.frameRate) metadata.frame_rate = Math.round(video.frameRate * 100) / 100;
  if (video.audio) metadata.audio_codec = MP4_CODECS.audio;
  return metadata;
}
