import {
  probeMedia,
  runFfmpeg,
  UnprocessableMediaError,
  type AssetMetadata,
  type MediaProbe,
  type MetadataValue,
} from '@weft/media';
import { NodeFailure, type AssetInfo, type NodeContext } from './types';
import { assetIds, single } from './values';

// The video and audio inputs of media nodes: read by ffmpeg from presigned
// URLs, probed first so that a file that is not what the port needs fails
// naming the port, before any work. A store failing (MediaSourceError)
// propagates: the engine retries the node.

/** Longest a probe of one input may take; the node's own timeout bounds it too. */
const PROBE_TIMEOUT_MS = 60_000;

export interface MediaSource {
  id: string;
  url: string;
  info: AssetInfo;
  probe: MediaProbe;
}

/** What a port needs of a file: a video track, or a sound (audio, or a video's). */
export type Needs = 'video' | 'sound' | 'video with sound';

function failure(ctx: NodeContext, port: string, id: string, what: string): NodeFailure {
  return new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the file at input '${port}' (asset ${id}) ${what}`);
}

/** The asset ids at `port`, at least one. */
export function mediaIds(ctx: NodeContext, port: string): string[] {
  const ids = assetIds(ctx, single(ctx, port));
  if (ids.length === 0)
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' received no file at input '${port}'`);
  return ids;
}

/** The asset's URL and probe, checked against what the port needs. */
export async function openMedia(ctx: NodeContext, port: string, id: string, needs: Needs): Promise<MediaSource> {
  const { info, url } = await ctx.assets.url(id, ctx.signal);
  let probe: MediaProbe;
  try {
    probe = await probeMedia(url, { ...ctx.tools, timeoutMs: PROBE_TIMEOUT_MS }, ctx.signal);
  } catch (err) {
    if (err instanceof UnprocessableMediaError) throw failure(ctx, port, id, 'is not a readable video or audio file');
    throw err;
  }
  if (needs !== 'sound' && probe.videoStream === undefined) throw failure(ctx, port, id, 'is not a video');
  if (needs !== 'video' && probe.audioStream === undefined) throw failure(ctx, port, id, 'has no sound');
  return { id, url, info, probe };
}

/**
 * Runs ffmpeg over inputs already probed: when it still finds the content
 * unprocessable (damage past the header), the failure names the input.
 */
export async function runOnMedia(ctx: NodeContext, blame: string, args: string[]): Promise<void> {
  try {
    await runFfmpeg({ ffmpeg: ctx.tools.ffmpeg, signal: ctx.signal }, args);
  } catch (err) {
    if (err instanceof UnprocessableMediaError) {
      throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': ${blame} could not be processed`);
    }
    throw err;
  }
}

/** Metadata of a result: the known numbers only (the asset job fills the rest). */
export function knownMetadata(values: Record<string, MetadataValue | undefined>): AssetMetadata {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null)) as AssetMetadata;
}
