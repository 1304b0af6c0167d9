import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { asText, NodeFailure, single, type NodeContext, type NodeResult } from '@weft/nodes';
import { metered, type Capability } from '../capability';
import { storeResultBytes } from '../results';
import { answerBytes, extraBody, type ElevenLabsCall } from './elevenlabs-call';

/** George, a premade voice every account has (ElevenLabs' own quickstart uses it). */
export const DEFAULT_VOICE_ID = 'JBFqnCBsd6RMkjVDRZzb';

/** espeak-ng's default pace, which params.speed (words per minute) is relative to. */
const NORMAL_WPM = 175;
/** The pace ElevenLabs' voice_settings.speed allows, relative to the voice's own. */
const SPEED_RANGE = [0.7, 1.2] as const;

interface SpeechParams {
  voice?: string;
  speed?: number;
}

/** voice_settings.speed of params.speed, or a failure saying the range in words per minute. */
function speedOf(ctx: NodeContext): number | undefined {
  const { speed } = ctx.params as SpeechParams;
  if (speed === undefined) return undefined;
  const relative = speed / NORMAL_WPM;
  const [low, high] = SPEED_RANGE;
  if (relative < low || relative > high) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': params.speed ${speed} is outside what ElevenLabs voices speak ` +
        `(${Math.ceil(low * NORMAL_WPM)} to ${Math.floor(high * NORMAL_WPM)} words per minute)`,
    );
  }
  return Math.round(relative * 100) / 100;
}

/** `text_to_speech`: textToSpeech.convert, MP3; params.voice is a voice id. */
export function elevenLabsSpeech(): Capability<ElevenLabsClient> {
  return {
    defaultModel: 'eleven_multilingual_v2',
    async execute(ctx: NodeContext, call: ElevenLabsCall): Promise<NodeResult> {
      const text = asText(single(ctx, 'text')).trim();
      if (text === '')
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the text at input 'text' is empty`);
      const speed = speedOf(ctx);
      const voice = (ctx.params as SpeechParams).voice ?? DEFAULT_VOICE_ID;
      const audio = await answerBytes(ctx, call, (options) =>
        call.client.textToSpeech.convert(
          voice,
          {
            text,
            modelId: call.model,
            outputFormat: 'mp3_44100_128',
            ...(speed !== undefined ? { voiceSettings: { speed } } : {}),
          },
          { ...options, ...extraBody(ctx) },
        ),
      );
      const id = await storeResultBytes(ctx, audio, 0, 'audio');
      // ElevenLabs bills the characters of the text it speaks.
      return { output: { type: 'audio', value: [id] }, ...metered(call, { characters: text.length }) };
    },
  };
}
