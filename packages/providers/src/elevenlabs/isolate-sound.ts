import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import type { NodeContext, NodeResult } from '@weft/nodes';
import { metered, type Capability } from '../capability';
import { storeResultBytes } from '../results';
import { answerBytes, type ElevenLabsCall } from './elevenlabs-call';
import { sourceMedia } from './source-media';

/** `isolate_sound`: the voice of a recording (audioIsolation.convert), billed by its length. */
export function elevenLabsIsolateSound(): Capability<ElevenLabsClient> {
  return {
    defaultModel: 'audio_isolation',
    async execute(ctx: NodeContext, call: ElevenLabsCall): Promise<NodeResult> {
      const source = await sourceMedia(ctx, 'audio', ['audio', 'video']);
      const upload = await source.upload();
      const audio = await answerBytes(ctx, call, (options) =>
        call.client.audioIsolation.convert({ audio: upload }, options),
      );
      const id = await storeResultBytes(ctx, audio, 0, 'audio');
      return { output: { type: 'audio', value: [id] }, ...metered(call, { seconds: source.seconds }) };
    },
  };
}
