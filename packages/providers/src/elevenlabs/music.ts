import type { ElevenLabs, ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { asText, NodeFailure, single, type NodeContext, type NodeResult } from '@weft/nodes';
import { metered, type Capability } from '../capability';
import { storeResultBytes } from '../results';
import { answerBytes, extraBody, type ElevenLabsCall } from './elevenlabs-call';

/** What the music API composes when no duration is asked for (it chooses; this bounds the charge). */
const DEFAULT_SECONDS = 30;
/** The lengths music.compose takes: 3 s to 10 min. */
const MIN_SECONDS = 3;
const MAX_SECONDS = 600;

/** `music_generation`: music.compose of the prompt, params.duration → music_length_ms, MP3. */
export function elevenLabsMusic(): Capability<ElevenLabsClient> {
  return {
    defaultModel: 'music_v2',
    async execute(ctx: NodeContext, call: ElevenLabsCall): Promise<NodeResult> {
      const prompt = asText(single(ctx, 'prompt')).trim();
      if (prompt === '') {
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the prompt at input 'prompt' is empty`);
      }
      const seconds = (ctx.params as { duration?: number }).duration ?? DEFAULT_SECONDS;
      if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
        throw new NodeFailure(
          'invalid_input',
          `Node '${ctx.nodeId}': params.duration ${seconds} is outside what ElevenLabs composes (${MIN_SECONDS} to ${MAX_SECONDS} s)`,
        );
      }
      const audio = await answerBytes(ctx, call, (options) =>
        call.client.music.compose(
          {
            prompt,
            musicLengthMs: Math.round(seconds * 1000),
            modelId: call.model as ElevenLabs.MusicModelId,
            outputFormat: 'mp3_44100_128',
          },
          { ...options, ...extraBody(ctx) },
        ),
      );
      const id = await storeResultBytes(ctx, audio, 0, 'audio');
      // Billed by the length asked for, which is what the API composes.
      return { output: { type: 'audio', value: [id] }, ...metered(call, { seconds }) };
    },
  };
}
