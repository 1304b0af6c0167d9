// How an audio file a media node produces is encoded: in the format it came
// in, among those assets may have (WAV and MP3).

export interface AudioOutput {
  contentType: string;
  extension: 'wav' | 'mp3';
  codec: string;
  /** Output options (before the output path). */
  args: readonly string[];
}

const WAV: AudioOutput = {
  contentType: 'audio/wav',
  extension: 'wav',
  codec: 'pcm_s16le',
  args: ['-c:a', 'pcm_s16le', '-f', 'wav'],
};

const MP3: AudioOutput = {
  contentType: 'audio/mpeg',
  extension: 'mp3',
  codec: 'mp3',
  args: ['-c:a', 'libmp3lame', '-q:a', '2', '-f', 'mp3'],
};

/** The encoding of an audio file produced from one with this extension: WAV stays WAV, anything else is MP3. */
export function audioOutputFor(extension: string): AudioOutput {
  return extension === 'wav' ? WAV : MP3;
}
