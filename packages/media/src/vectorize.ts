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

/** A trace under way, shared by every caller that asked for the same image meanwhile. */
interface SharedTrace {
  key: string;
  result: Promise<string>;
  /** Callers still waiting for it; when the last one leaves, the trace is ended. */
  waiters: number;
  controller: AbortController;
}
const pending = new Map<string, SharedTrace>();

/** An image the caller has not read yet: it is read only once the tracer is free for it. */
export interface TraceSource {
  /** Names the content for the cache: one key, one content (the store key of an object that never changes, say). */
  key: string;
  read(): Promise<Buffer>;
}

/** The image's SHA-256 (computed on libuv's thread pool, not this thread). */
async function contentKey(input: Buffer): Promise<string> {
  return `sha256:${Buffer.from(await webcrypto.subtle.digest('SHA-256', input)).toString('base64')}`;
}

/**
 * Traces a raster image into a black-and-white SVG with potrace
 * (experimental: good for logos and line art, crude for photographs).
 * sharp decodes the upload (with the pixel limit; on libuv's thread pool, or
 * for an HEVC HEIF on a worker thread, heic.ts) and hands potrace a small PNG
 * of its own making, so potrace's bundled decoder never sees user bytes.
 * potrace runs on a worker thread of the trace pool (trace-pool.ts), one at a
 * time per process, so this thread's event loop goes on meanwhile; a
 * TraceSource is read only when its turn comes, so callers waiting in the
 * queue hold no image. Once `signal` aborts, this call rejects with its
 * reason, and the trace is ended if no other caller waits for it.
 */
export async function traceToSvg(
  source: Buffer | TraceSource,
  limits: ImageLimits,
  signal?: AbortSignal,
): Promise<string> {
  signal?.throwIfAborted();
  const { key: contentName, read } = Buffer.isBuffer(source)
    ? { key: await contentKey(source), read: () => Promise.resolve(source) }
    : source;
  // Another pixel limit may decide otherwise about the same image.
  const key = `${contentName}:${limits.maxPixels}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let shared = pending.get(key);
  if (!shared) {
    const controller = new AbortController();
    const result = tracePool.run(async () => tracerInput(await read(), limits), TRACE_OPTIONS, controller.signal);
    const started: SharedTrace = { key, result, waiters: 0, controller };
    pending.set(key, started);
    void result
      .then(
        (svg) => cache.set(key, svg),
        () => undefined,
      )
      .finally(() => forget(started));
    shared = started;
  }
  return follow(shared, signal);
}

function forget(shared: SharedTrace): void {
  if (pending.get(shared.key) === shared) pending.delete(shared.key);
}

/** The shared trace's result for one caller, who may stop waiting before it comes. */
function follow(shared: SharedTrace, signal: AbortSignal | undefined): Promise<string> {
  shared.waiters++;
  if (!signal) return shared.result;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      if (--shared.waiters === 0) {
        // A later caller for the same image starts afresh rather than joining a trace being ended.
        forget(shared);
        shared.controller.abort(signal.reason);
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    shared.result.then(
      (svg) => {
        signal.removeEventListener('abort', onAbort);
        resolve(svg);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
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
