import { speak, UnknownVoiceError, wavInfo } from '@weft/media';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineNode } from '../definition';
import { knownMetadata } from '../known-metadata';
import { providerParams, textPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { executeRouted, localOrProviderEstimate } from '../provider-route';
import { NodeFailure } from '../types';
import { asText, single } from '../values';

/**
 * Speech from text. Served by a provider adapter when one is routed to it,
 * else by the worker's own route: espeak-ng, whose voices are many languages
 * (`en`, `fr`, `pt-br`) and variants (`en-us`, `en+f3`).
 */
export const textToSpeech = defineNode({
  type: 'text_to_speech',
  description: 'The text at `text` spoken.',
  serving: 'local_or_provider',
  inputs: { text: textPort('What to say') },
  params: z.object({
    ...providerParams,
    voice: z
      .string()
      .min(1)
      .optional()
      .describe("A voice: espeak-ng's name or language (default en), or the provider's voice (default its own)"),
    speed: z.number().min(80).max(450).optional().describe('Words per minute'),
  }),
  output: { kinds: ['audio'] },
  localRoute: { model: 'espeak-ng' },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 5 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: localOrProviderEstimate(20),
  execute: (ctx) =>
    executeRouted('text_to_speech', ctx, async () => {
      const text = asText(single(ctx, 'text')).trim();
      if (text === '')
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the text at input 'text' is empty`);
      const dir = await ctx.workDir();
      const textFile = path.join(dir, 'speech.txt');
      const output = path.join(dir, 'speech.wav');
      await fs.writeFile(textFile, text);
      try {
        await speak(
          { espeak: ctx.tools.espeak, signal: ctx.signal },
          {
            voice: ctx.params.voice ?? 'en',
            ...(ctx.params.speed !== undefined ? { wordsPerMinute: ctx.params.speed } : {}),
            textFile,
            output,
          },
        );
      } catch (err) {
        if (!(err instanceof UnknownVoiceError)) throw err;
        throw new NodeFailure(
          'invalid_input',
          `Node '${ctx.nodeId}': params.voice '${ctx.params.voice ?? 'en'}' is not a voice of espeak-ng (a language like en, fr, de)`,
        );
      }
      const wav = await wavInfo(output);
      const id = await ctx.assets.store(
        {
          path: output,
          contentType: 'audio/wav',
          mediaType: 'audio',
          extension: 'wav',
          metadata: knownMetadata({
            codec: 'pcm_s16le',
            duration: wav?.duration,
            sample_rate: wav?.sampleRate,
            channels: wav?.channels,
          }),
        },
        0,
        ctx.signal,
      );
      return { output: { type: 'audio', value: [id] } };
    }),
});
