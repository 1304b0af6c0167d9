// What extract_audio writes for each format it offers.

export type AudioFormat = 'mp3' | 'wav';

export interface AudioEncoding {
  extension: string;
  contentType: string;
  /** The codec as ffprobe names it (the asset's `codec` metadata). */
  codec: string;
  /** ffmpeg's output options for it. */
  args: readonly string[];
}

export const AUDIO_FORMATS: Readonly<Record<AudioFormat, AudioEncoding>> = {
  // VBR quality 2 (~190 kb/s): transparent for speech and music alike.
  mp3: { extension: 'mp3', contentType: 'audio/mpeg', codec: 'mp3', args: ['-c:a', 'libmp3lame', '-q:a', '2'] },
  wav: { extension: 'wav', contentType: 'audio/wav', codec: 'pcm_s16le', args: ['-c:a', 'pcm_s16le'] },
};
