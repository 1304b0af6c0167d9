import { probeMedia, UnprocessableMediaError } from '@weft/media';
import { assetIds, NodeFailure, single, type AssetInfo, type NodeContext } from '@weft/nodes';
import fs from 'node:fs';

// The recordings sent to ElevenLabs: checked to be what the port takes,
// probed for their length (what the provider charges by), and uploaded from
// a file of the node's working directory as a Blob, which the SDK can send
// again when it retries (a stream could be read once only).

const PROBE_TIMEOUT_MS = 2 * 60_000;

export interface Upload {
  data: Blob;
  filename: string;
  contentType: string;
}

export interface SourceMedia {
  info: AssetInfo;
  /** Seconds of media, as ffprobe reads them. */
  seconds: number;
  /** The file as the SDK uploads it, downloaded when asked for (a resumed job needs none). */
  upload(): Promise<Upload>;
}

/** The single asset at `port`, which must be one of `kinds` with sound. */
export async function sourceMedia(
  ctx: NodeContext,
  port: string,
  kinds: readonly ('audio' | 'video')[],
): Promise<SourceMedia> {
  const ids = assetIds(ctx, single(ctx, port));
  if (ids.length !== 1) {
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' needs exactly one file at input '${port}'`);
  }
  const id = ids[0]!;
  const noun = kinds.join(' or ');
  const bad = (what: string) =>
    new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the asset ${id} at input '${port}' ${what}`);
  const { info, url } = await ctx.assets.url(id, ctx.signal);
  if (!(kinds as readonly string[]).includes(info.mediaType)) throw bad(`is ${info.mediaType}, not ${noun}`);
  let probe;
  try {
    probe = await probeMedia(url, { ...ctx.tools, timeoutMs: PROBE_TIMEOUT_MS }, ctx.signal);
  } catch (err) {
    if (err instanceof UnprocessableMediaError) throw bad(`cannot be read as ${noun}`);
    throw err;
  }
  if (probe.audioStream === undefined) throw bad('has no sound');
  return {
    info,
    seconds: probe.duration ?? 0,
    async upload() {
      const file = await ctx.assets.download(id, ctx.signal);
      const data = await fs.openAsBlob(file.path, { type: info.contentType });
      return { data, filename: info.filename, contentType: info.contentType };
    },
  };
}
