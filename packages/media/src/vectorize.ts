import { webcrypto } from 'node:crypto';
import { openImage, UnprocessableMediaError, type ImageLimits } from './image';
import { SvgCache } from './svg-cache';
import { tracePool, type TraceOptions } from './trace-pool';

/** Longest side the tracer works on: potrace's time grows with the pixel count. */
const TRACE_SIZE = 1024;

const TRACE_OPTIONS: TraceOptions = { turdSize: 2, optTolerance: 0.4 };

/**
 * Recent results by the image's content: a download asked for again is not
 * traced again. 16 MiB of SVG at most (a noise-like image alone makes ~10 MB,
 * which is therefore not kept), each for ten minutes.
 */
const cache = new SvgCache(16 * 1024 * 1024, 10 * 60_000);
/** Traces under way, by the same key: a second request for the same image waits for the first one's. */
const pending = new Map<string, Promise<string>>();

/** The image's SHA-256 (computed on libuv's thread pool, not this thread) and what else shapes the result. */
async function cacheKey(input: Buffer, limits: ImageLimits): Promise<string> {
  const digest = Buffer.from(await webcrypto.subtle.digest('SHA-256', input)).toString('base64');
  return `${digest}:${limits.maxPixels}`;
}

/**
 * Traces a raster image into a black-and-white SVG with potrace
 * (experimental: good for logos and line art, crude for photographs).
 * sharp decodes the upload (with the pixel limit; on libuv's thread pool, or
 * for an HEVC HEIF on a worker thread, heic.ts) and hands potrace a small PNG
 * of its own making, so potrace's bundled decoder never sees user bytes.
 * potrace runs on a worker thread of the trace pool (trace-pool.ts), one at a
 * time per process, so this thread's event loop goes on meanwhile.
 */
export async function traceToSvg(input: Buffer, limits: ImageLimits): Promise<string> {
  const key = await cacheKey(input, limits);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let result = pending.get(key);
  if (!result) {
    result = tracePool.run(() => tracerInput(input, limits), TRACE_OPTIONS);
    pending.set(key, result);
    const settled = result.then(
      (svg) => cache.set(key, svg),
      () => undefined,
    );
    void settled.finally(() => pending.delete(key));
  }
  return result;
}

/** The PNG potrace reads: upright, at most TRACE_SIZE on its longest side, on white. */
async function tracerInput(input: Buffer, limits: ImageLimits): Promise<Buffer> {
  try {
    return await (
      await openImage(input, limits)
    )
      .pipeline()
      .resize({ width: TRACE_SIZE, height: TRACE_SIZE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();
  } catch (err) {
    throw new UnprocessableMediaError(err instanceof Error ? err.message : String(err));
  }
}
