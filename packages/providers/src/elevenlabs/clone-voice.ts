import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { asText, single, type NodeContext, type NodeResult } from '@weft/nodes';
import { metered, type Capability } from '../capability';
import { sdk, type ElevenLabsCall } from './elevenlabs-call';
import { sourceMedia } from './source-media';

/** `clone_voice`: an instant voice clone (voices.ivc.create) of the recording; data `{voice_id}`. */
export function elevenLabsCloneVoice(): Capability<ElevenLabsClient> {
  return {
    defaultModel: 'ivc',
    async execute(ctx: NodeContext, call: ElevenLabsCall): Promise<NodeResult> {
      const source = await sourceMedia(ctx, 'audio', ['audio']);
      const options = (ctx.params as { options?: { name?: unknown; description?: unknown } }).options ?? {};
      const name = typeof options.name === 'string' && options.name.trim() ? options.name : `Weft ${ctx.nodeId}`;
      // The transcript, when linked, helps no ElevenLabs call: it is kept as the voice's description.
      const transcript = ctx.inputs.text !== undefined ? asText(single(ctx, 'text')).trim().slice(0, 500) : undefined;
      const description = typeof options.description === 'string' ? options.description : transcript;
      const upload = await source.upload();
      const voice = await sdk(ctx, call, (requestOptions) =>
        call.client.voices.ivc.create(
          { name, files: [upload], ...(description ? { description } : {}) },
          requestOptions,
        ),
      );
      return {
        output: { type: 'data', value: { voice_id: voice.voiceId } },
        ...metered(call, { requests: 1 }),
      };
    },
  };
}
