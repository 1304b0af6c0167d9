// webvtt-parser (the W3C validator's parser) ships no types: what we use of it.
declare module 'webvtt-parser' {
  export interface WebVTTCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
  }
  export interface WebVTTError {
    message: string;
    line: number;
    col?: number;
  }
  export class WebVTTParser {
    parse(input: string, mode?: 'subtitles' | 'chapters' | 'metadata'): { cues: WebVTTCue[]; errors: WebVTTError[] };
  }
}
