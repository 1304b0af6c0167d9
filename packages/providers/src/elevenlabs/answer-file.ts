import { SNIFF_BYTES, sniffContent } from '@weft/media';
import { NodeFailure, type NodeContext } from '@weft/nodes';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { sdk, type CallOptions, type ElevenLabsCall } from './elevenlabs-call';

// A dubbed file can be as long as its source (hours of video): it is written
// to the node's working directory as it arrives, never held in memory, and
// stored from there. Its kind is judged from its bytes, as for every result.

/** The largest file the provider may answer with. */
const MAX_FILE_BYTES = 2 * 1024 ** 3;

/** Streams a binary answer to a file and stores it as the run's asset number `index`, of kind `expected`. */
export async function storeAnswerFile(
  ctx: NodeContext,
  call: ElevenLabsCall,
  index: number,
  expected: 'audio' | 'video',
  fetch: (options: CallOptions) => Promise<ReadableStream<Uint8Array>>,
): Promise<string> {
  const file = path.join(await ctx.workDir(), `answer-${index}`);
  const head: Buffer[] = [];
  let size = 0;
  let headSize = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > MAX_FILE_BYTES) return done(new Error('too large'));
      if (headSize < SNIFF_BYTES) {
        head.push(chunk);
        headSize += chunk.length;
      }
      done(null, chunk);
    },
  });
  await sdk(ctx, call, async (options) => {
    const body = await fetch(options);
    try {
      await pipeline(Readable.fromWeb(body as WebReadableStream), meter, fs.createWriteStream(file), {
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      throw new NodeFailure(
        'provider_error',
        size > MAX_FILE_BYTES
          ? `Node '${ctx.nodeId}': the provider's file is larger than ${MAX_FILE_BYTES} bytes`
          : `Node '${ctx.nodeId}': the provider's file could not be read whole`,
      );
    }
  });
  const media = (await sniffContent(Buffer.concat(head).subarray(0, SNIFF_BYTES), size <= SNIFF_BYTES))?.media;
  if (!media || media.mediaType !== expected) {
    throw new NodeFailure(
      'provider_error',
      `Node '${ctx.nodeId}': the provider returned a file that is not a supported ${expected} file`,
    );
  }
  return ctx.assets.store(
    { path: file, contentType: media.contentType, mediaType: media.mediaType, extension: media.extension },
    index,
    ctx.signal,
  );
}
