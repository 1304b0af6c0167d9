import { probeMedia, readImageHeader } from '@weft/media';
import { NodeFailure, type NodeContext, type UsageUnit } from '@weft/nodes';
import { storeResultUrl } from '../results';
import type { FalTypeMapping } from './fal-models';

// An app's answer as the node's output: the files it names by URL (images[],
// image, video, audio...) fetched under the outbound rules and stored as
// assets of the run, and the usage its price counts.

interface FalFile {
  url: string;
  width?: number;
  height?: number;
  /** Seconds, for video and audio files that say. */
  duration?: number;
}

const isFile = (v: unknown): v is FalFile =>
  typeof v === 'object' && v !== null && typeof (v as { url?: unknown }).url === 'string';

/** The files of the answer, in the fields the mapping names. */
export function filesOf(ctx: NodeContext, data: unknown, mapping: FalTypeMapping): FalFile[] {
  const answer = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const nsfw = answer.has_nsfw_concepts;
  // Flux and its kin send a black image for what their safety checker flags.
  if (Array.isArray(nsfw) && nsfw.length > 0 && nsfw.every((flag) => flag === true)) {
    throw new NodeFailure('content_policy', `Node '${ctx.nodeId}': the provider's safety checker withheld the result`);
  }
  for (const field of mapping.result.fields) {
    const value = answer[field];
    const files = (Array.isArray(value) ? value : [value]).filter(isFile);
    if (files.length > 0) return files;
  }
  throw new NodeFailure(
    'provider_error',
    `Node '${ctx.nodeId}': the provider's answer has no ${mapping.result.kind} (${mapping.result.fields.join(', ')})`,
  );
}

/** The pixels of a stored image, from its header, when fal did not say. */
async function megapixelsOf(ctx: NodeContext, file: FalFile, assetId: string): Promise<number> {
  if (file.width && file.height) return (file.width * file.height) / 1e6;
  const { width, height } = await readImageHeader((await ctx.assets.read(assetId, ctx.signal)).bytes, ctx.imageLimits);
  return ((width ?? 0) * (height ?? 0)) / 1e6;
}

/** The length of a stored video or audio file, from fal's answer or else ffprobe. */
async function secondsOf(ctx: NodeContext, file: FalFile, assetId: string, answered: unknown): Promise<number> {
  if (typeof file.duration === 'number') return file.duration;
  if (typeof answered === 'number') return answered;
  const { url } = await ctx.assets.url(assetId, ctx.signal);
  const probe = await probeMedia(url, { ...ctx.tools, timeoutMs: 60_000 }, ctx.signal);
  return probe.duration ?? 0;
}

/** Stores the files and measures them in the mapping's unit. */
export async function storeFiles(
  ctx: NodeContext,
  data: unknown,
  mapping: FalTypeMapping,
): Promise<{ ids: string[]; units: Partial<Record<UsageUnit, number>> }> {
  const files = filesOf(ctx, data, mapping);
  const ids: string[] = [];
  for (const [index, file] of files.entries())
    ids.push(await storeResultUrl(ctx, file.url, index, mapping.result.kind));
  if (mapping.unit === 'requests') return { ids, units: { requests: 1 } };
  if (mapping.unit === 'images') {
    let megapixels = 0;
    for (const [i, file] of files.entries()) megapixels += await megapixelsOf(ctx, file, ids[i]!);
    return { ids, units: { images: files.length, megapixels: Math.round(megapixels * 1000) / 1000 } };
  }
  const answered = (data as { duration?: unknown } | null)?.duration;
  let seconds = 0;
  for (const [i, file] of files.entries()) seconds += await secondsOf(ctx, file, ids[i]!, answered);
  return { ids, units: { seconds: Math.round(seconds * 1000) / 1000 } };
}
