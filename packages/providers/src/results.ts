import { SNIFF_BYTES, sniffContent, type MediaType } from '@weft/media';
import { guardedFetch, NodeFailure, parseAllowList, refusalOf, type NodeContext } from '@weft/nodes';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

// Files providers hand back (bytes in a response, or URLs to fetch) become
// assets of the run. Their kind is decided from their bytes, as for uploads,
// never from the provider's Content-Type or file name; a URL is fetched under
// the outbound rules (docs/api.md#outbound-requests), whatever host the provider names.

/** The largest file a provider result may be. */
const MAX_RESULT_BYTES = 2 * 1024 ** 3;

export type ResultKind = Exclude<MediaType, 'file'> | 'file';

async function sniffed(ctx: NodeContext, sample: Buffer, complete: boolean, expected: ResultKind, what: string) {
  const media = (await sniffContent(sample.subarray(0, SNIFF_BYTES), complete))?.media;
  if (!media || (expected !== 'file' && media.mediaType !== expected)) {
    throw new NodeFailure(
      'provider_error',
      `Node '${ctx.nodeId}': the provider returned ${what} that is not a supported ${expected} file`,
    );
  }
  return media;
}

/** Stores bytes a provider returned (base64 images, speech) as the run's asset number `index`. */
export async function storeResultBytes(
  ctx: NodeContext,
  bytes: Buffer,
  index: number,
  expected: ResultKind,
): Promise<string> {
  const media = await sniffed(ctx, bytes, true, expected, 'a file');
  return ctx.assets.store(
    { bytes, contentType: media.contentType, mediaType: media.mediaType, extension: media.extension },
    index,
    ctx.signal,
  );
}

/**
 * Fetches a file a provider returned by URL, under the outbound rules, to the
 * node's working directory, and stores it as the run's asset number `index`.
 */
export async function storeResultUrl(
  ctx: NodeContext,
  url: string,
  index: number,
  expected: ResultKind,
  headers: Record<string, string> = {},
): Promise<string> {
  const fetch = guardedFetch(parseAllowList(ctx.outboundAllowList));
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const refused = refusalOf(err);
    if (refused) throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the result URL: ${refused.message}`);
    throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider's result could not be fetched`);
  }
  if (!response.ok || !response.body) {
    throw new NodeFailure(
      'provider_error',
      `Node '${ctx.nodeId}': the provider's result could not be fetched (HTTP ${response.status})`,
    );
  }
  return storeResultStream(ctx, Readable.fromWeb(response.body as WebReadableStream), index, expected);
}

/** Streams a provider's file to the node's working directory and stores it as the run's asset number `index`. */
export async function storeResultStream(
  ctx: NodeContext,
  source: Readable,
  index: number,
  expected: ResultKind,
  filename?: string,
): Promise<string> {
  const file = path.join(await ctx.workDir(), `result-${index}`);
  let size = 0;
  const head: Buffer[] = [];
  let headSize = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > MAX_RESULT_BYTES) return done(new Error('too large'));
      if (headSize < SNIFF_BYTES) {
        head.push(chunk);
        headSize += chunk.length;
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, fs.createWriteStream(file), {
      signal: ctx.signal,
    });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw new NodeFailure(
      'provider_error',
      size > MAX_RESULT_BYTES
        ? `Node '${ctx.nodeId}': the provider's result is larger than ${MAX_RESULT_BYTES} bytes`
        : `Node '${ctx.nodeId}': the provider's result could not be fetched whole`,
    );
  }
  const media = await sniffed(ctx, Buffer.concat(head), size <= SNIFF_BYTES, expected, 'a file');
  return ctx.assets.store(
    {
      path: file,
      contentType: media.contentType,
      mediaType: media.mediaType,
      extension: media.extension,
      ...(filename ? { filename } : {}),
    },
    index,
    ctx.signal,
  );
}
