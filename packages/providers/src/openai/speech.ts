import { asText, NodeFailure, single } from '@weft/nodes';
import type OpenAI from 'openai';
import { metered, type Capability } from '../capability';
import { storeResultBytes } from '../results';
import { openAIFailure } from './openai-failures';

type SpeechBody = OpenAI.Audio.SpeechCreateParams;

interface SpeechParams {
  voice?: string;
  /** Words per minute (the param is espeak-ng's): OpenAI's `speed` is a factor of its normal pace. */
  speed?: number;
  options?: Record<string, unknown>;
}

/** espeak-ng's default pace, which params.speed is measured against. */
const NORMAL_WORDS_PER_MINUTE = 175;

/** text_to_speech through audio.speech: MP3 of the text, charged per character. */
export function openAISpeech(): Capability<OpenAI> {
  return {
    defaultModel: 'gpt-4o-mini-tts',
    async execute(ctx, call) {
      const text = asText(single(ctx, 'text')).trim();
      if (text === '')
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the text at input 'text' is empty`);
      const { voice, speed, options } = ctx.params as SpeechParams;
      const body: SpeechBody = {
        ...(options ?? {}),
        model: call.model,
        input: text,
        voice: voice ?? 'alloy',
        ...(speed !== undefined
          ? { speed: Math.min(4, Math.max(0.25, Number((speed / NORMAL_WORDS_PER_MINUTE).toFixed(2)))) }
          : {}),
        response_format: 'mp3',
      };
      const audio = await call.client.audio.speech
        .create(body, { signal: ctx.signal })
        .then(async (response) => Buffer.from(await response.arrayBuffer()))
        .catch((err: unknown) => {
          throw openAIFailure(err, ctx.nodeId, call.credentialSource);
        });
      const id = await storeResultBytes(ctx, audio, 0, 'audio');
      return { output: { type: 'audio', value: [id] }, ...metered(call, { characters: [...text].length }) };
    },
  };
}
