import { probeMedia, runFfmpeg, UnprocessableMediaError, URL_INPUT, type MediaProbe } from '@weft/media';
import { NodeFailure, type AssetInfo, type NodeContext } from './types';
import { single } from './values';

// The video and audio a media node reads: each asset checked, probed through
// its presigned URL (never downloaded), and ffmpeg run on it, with every
// fault of the content reported as invalid_input naming the node, the port
// and the asset. A store that fails (MediaSourceError) is left to propagate:
// the engine retries the job.

/** ffprobe reads a header: far less than a node's own timeout, which aborts it anyway. */
const PROBE_TIMEOUT_MS = 2 * 60_000;

/**
 * What a port needs of an asset: a video (with a video track, or with sound
 * too), an audio file, or a video or audio file with sound or with either.
 */
export type SourceNeed = 'video' | 'video with sound' | 'audio' | 'sound' | 'media';

interface NeedRule {
  mediaTypes: string[];
  noun: string;
  picture: boolean;
  sound: boolean;
}

const NEEDS: Record<SourceNeed, NeedRule> = {
  video: { mediaTypes: ['video'], noun: 'video', picture: true, sound: false },
  'video with sound': { mediaTypes: ['video'], noun: 'video', picture: true, sound: true },
  audio: { mediaTypes: ['audio'], noun: 'audio file', picture: false, sound: true },
  sound: { mediaTypes: ['video', 'audio'], noun: 'video or audio file', picture: false, sound: true },
  media: { mediaTypes: ['video', 'audio'], noun: 'video or audio file', picture: false, sound: false },
};

export interface VideoTrack {
  /** The stream index in the file (cover art is never picked). */
  stream: number;
  /** As displayed (rotation applied), which is what ffmpeg's filters see. */
  width: number;
  height: number;
  frameRate?: number;
}

export interface MediaSource {
  id: string;
  port: string;
  url: string;
  info: AssetInfo;
  probe: MediaProbe;
  video?: VideoTrack;
  /** Whether it has a sound track. */
  audio: boolean;
  /** Seconds, when the file says. */
  duration?: number;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

/** An invalid_input failure about the asset at `port`. */
export function sourceFailure(ctx: NodeContext, port: string, assetId: string, what: string): NodeFailure {
  return new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the asset ${assetId} at input '${port}' ${what}`);
}

/** The asset ids of `values` (by default the single value at `port`); a failure when there are none. */
export function sourceIds(
  ctx: NodeContext,
  port: string,
  values: { value: unknown }[] = [single(ctx, port)],
): string[] {
  const ids = values.flatMap((v) => (Array.isArray(v.value) ? v.value : [v.value]));
  if (!ids.every((id): id is string => typeof id === 'string')) {
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' expects assets at input '${port}'`);
  }
  if (ids.length === 0)
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' received nothing at input '${port}'`);
  return ids;
}

/** The asset at `port`, probed: a failure naming the port unless it has what `need` asks. */
export async function openSource(
  ctx: NodeContext,
  port: string,
  assetId: string,
  need: SourceNeed,
): Promise<MediaSource> {
  const rule = NEEDS[need];
  const { info, url } = await ctx.assets.url(assetId, ctx.signal);
  if (!rule.mediaTypes.includes(info.mediaType)) {
    throw sourceFailure(ctx, port, assetId, `is ${article(info.mediaType)}, not ${article(rule.noun)}`);
  }
  let probe: MediaProbe;
  try {
    probe = await probeMedia(url, { ...ctx.tools, timeoutMs: PROBE_TIMEOUT_MS }, ctx.signal);
  } catch (err) {
    if (err instanceof UnprocessableMediaError) {
      throw sourceFailure(ctx, port, assetId, `cannot be read as ${article(rule.noun)}`);
    }
    throw err;
  }
  const { metadata } = probe;
  const width = typeof metadata.width === 'number' ? metadata.width : undefined;
  const height = typeof metadata.height === 'number' ? metadata.height : undefined;
  const video =
    probe.videoStream !== undefined && width && height
      ? {
          stream: probe.videoStream,
          width,
          height,
          ...(typeof metadata.frame_rate === 'number' && metadata.frame_rate > 0
            ? { frameRate: metadata.frame_rate }
            : {}),
        }
      : undefined;
  const audio = probe.audioStream !== undefined;
  if (rule.picture && !video) throw sourceFailure(ctx, port, assetId, 'has no video track');
  if (rule.sound && !audio) throw sourceFailure(ctx, port, assetId, 'has no sound');
  if (!video && !audio) throw sourceFailure(ctx, port, assetId, 'has neither picture nor sound');
  return {
    id: assetId,
    port,
    url,
    info,
    probe,
    ...(video ? { video } : {}),
    audio,
    ...(probe.duration !== undefined && probe.duration > 0 ? { duration: probe.duration } : {}),
  };
}

/** `-i <url>` of each source, in order: input i of the ffmpeg command is sources[i]. */
export function inputArgs(sources: readonly MediaSource[], before: (source: MediaSource) => string[] = () => []) {
  return sources.flatMap((s) => [...before(s), ...URL_INPUT, '-i', s.url]);
}

/** The assets of `sources` as a message names them, port by port. */
function namedSources(sources: readonly MediaSource[]): string {
  const ports = [...new Set(sources.map((s) => s.port))];
  return ports
    .map((port) => {
      const ids = sources.filter((s) => s.port === port).map((s) => s.id);
      return ids.length === 1
        ? `the asset ${ids[0]} at input '${port}'`
        : `the assets at input '${port}' (${ids.join(', ')})`;
    })
    .join(' or ');
}

/**
 * Runs `work` (ffmpeg, with `sources` as its inputs): content it cannot
 * process is an invalid_input failure naming the ports and assets.
 */
export async function onSources<T>(
  ctx: NodeContext,
  sources: readonly MediaSource[],
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof UnprocessableMediaError)) throw err;
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': ${namedSources(sources)} could not be processed`);
  }
}

/** Runs ffmpeg with `args` on `sources` (the command's inputs), as onSources does. */
export function runOnSources(ctx: NodeContext, sources: readonly MediaSource[], args: string[]): Promise<void> {
  return onSources(ctx, sources, () => runFfmpeg({ ffmpeg: ctx.tools.ffmpeg, signal: ctx.signal }, args));
}

/**
 * Whether `seconds` lies past the end of `source`. A frame's worth (50 ms for
 * sound) of slack: a clip "of 5 s" may be probed at 4.992 s.
 */
export function pastEnd(source: MediaSource, seconds: number): boolean {
  if (source.duration === undefined) return false;
  const slack = source.video?.frameRate ? 1 / source.video.frameRate : 0.05;
  return seconds > source.duration + slack;
}

/** Seconds as a message shows them. */
export function secondsText(seconds: number): string {
  return `${Number(seconds.toFixed(3))} s`;
}
