import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import { metered, type Capability } from '../capability';
import { sdk, type ElevenLabsCall } from './elevenlabs-call';
import { sourceMedia } from './source-media';
import { srtOf, vttOf, type TimedWord } from './subtitle-cues';

interface TranscribeParams {
  language?: string;
  format?: 'text' | 'srt' | 'vtt';
}

/** `transcribe`: speechToText.convert (Scribe); SRT and WebVTT built from the word timings. */
export function elevenLabsTranscribe(): Capability<ElevenLabsClient> {
  return {
    defaultModel: 'scribe_v1',
    async execute(ctx: NodeContext, call: ElevenLabsCall): Promise<NodeResult> {
      const { language, format = 'text' } = ctx.params as TranscribeParams;
      const source = await sourceMedia(ctx, 'media', ['audio', 'video']);
      const upload = await source.upload();
      const answer = await sdk(ctx, call, (options) =>
        call.client.speechToText.convert(
          {
            modelId: call.model,
            file: upload,
            ...(language ? { languageCode: language } : {}),
            timestampsGranularity: 'word',
            tagAudioEvents: false,
          },
          options,
        ),
      );
      if (typeof answer?.text !== 'string' || !Array.isArray(answer.words)) {
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered no transcript`);
      }
      const words: TimedWord[] = answer.words
        .filter((w) => w.type === 'word' && w.start !== undefined)
        .map((w) => ({ text: w.text, start: w.start!, end: w.end ?? w.start! }));
      const text = format === 'srt' ? srtOf(words) : format === 'vtt' ? vttOf(words) : answer.text;
      // Billed by the length of the recording: the provider's count when it says, else ours.
      const seconds = answer.audioDurationSecs ?? source.seconds;
      return { output: { type: 'text', value: text }, ...metered(call, { seconds }) };
    },
  };
}
