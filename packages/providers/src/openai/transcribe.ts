import { assetIds, inputArgs, NodeFailure, openSource, runOnSources, single, type NodeContext } from '@weft/nodes';
import fs from 'node:fs/promises';
import path from 'node:path';
import type OpenAI from 'openai';
import { toFile, type Uploadable } from 'openai';
import { metered, type Capability } from '../capability';
import { openAIFailure } from './openai-failures';

type TranscriptionBody = OpenAI.Audio.TranscriptionCreateParamsNonStreaming<'text' | 'srt' | 'vtt'>;

interface TranscribeParams {
  language?: string;
  format?: 'text' | 'srt' | 'vtt';
  options?: Record<string, unknown>;
}

/** The audio files the transcriptions API reads (by the name's extension); anything else is sent as MP3. */
const READ_AS_IS = new Set(['flac', 'm4a', 'mp3', 'mpeg', 'mpga', 'ogg', 'wav', 'webm']);

/**
 * The recording at `media` as a file to upload: an audio file the API reads
 * as it is, else its sound track as MP3 (mono, ~64 kb/s: speech loses nothing,
 * and the API's 25 MB limit holds about an hour). With its duration, which is
 * what the call is charged by.
 */
async function recording(ctx: NodeContext): Promise<{ file: Uploadable; seconds: number }> {
  const ids = assetIds(ctx, single(ctx, 'media'));
  if (ids.length !== 1) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}' takes one recording at input 'media', not ${ids.length}`,
    );
  }
  const source = await openSource(ctx, 'media', ids[0]!, 'sound');
  const seconds = Math.round((source.duration ?? 0) * 1000) / 1000;
  if (source.info.mediaType === 'audio' && READ_AS_IS.has(source.info.extension)) {
    const downloaded = await ctx.assets.download(source.id, ctx.signal);
    return { file: await toFile(await fs.readFile(downloaded.path), `speech.${source.info.extension}`), seconds };
  }
  const output = path.join(await ctx.workDir(), 'speech.mp3');
  await runOnSources(
    ctx,
    [source],
    [
      ...inputArgs([source]),
      '-map',
      `0:${source.probe.audioStream}`,
      '-vn',
      '-sn',
      '-dn',
      '-ac',
      '1',
      '-c:a',
      'libmp3lame',
      '-q:a',
      '7',
      output,
    ],
  );
  return { file: await toFile(await fs.readFile(output), 'speech.mp3', { type: 'audio/mpeg' }), seconds };
}

/** transcribe through audio.transcriptions: text, SRT or WebVTT, charged per second of the recording. */
export function openAITranscribe(): Capability<OpenAI> {
  return {
    defaultModel: 'whisper-1',
    async execute(ctx, call) {
      const { language, format = 'text', options } = ctx.params as TranscribeParams;
      const { file, seconds } = await recording(ctx);
      const body: TranscriptionBody = {
        ...(options ?? {}),
        model: call.model,
        file,
        response_format: format,
        ...(language ? { language } : {}),
      };
      const answer: unknown = await call.client.audio.transcriptions
        .create(body, { signal: ctx.signal })
        .catch((err: unknown) => {
          throw openAIFailure(err, ctx.nodeId, call.credentialSource);
        });
      // A compatible server may answer JSON whatever was asked: its text is the transcript.
      const text = typeof answer === 'string' ? answer : (answer as { text?: unknown } | null)?.text;
      if (typeof text !== 'string') {
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered no transcript`);
      }
      return {
        output: { type: 'text', value: format === 'text' ? text.trim() : text },
        ...metered(call, { seconds }),
      };
    },
  };
}
