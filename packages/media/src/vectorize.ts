import { openImage, UnprocessableMediaError, type ImageLimits } from './image';

interface TraceOptions {
  turdSize?: number;
  optTolerance?: number;
}
type Trace = (file: Buffer, options: TraceOptions, done: (err: Error | null, svg?: string) => void) => void;

// @gatsbyjs/potrace ships no types; this is the one function used, typed here
// rather than by an ambient declaration every consumer's tsconfig would need.
// Loaded on first use: it brings a whole image library (jimp) that would
// otherwise sit in every gateway's heap, where each full garbage collection
// marks it again, for an experimental option few requests use.
let trace: Trace | undefined;
function loadTrace(): Trace {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  trace ??= (require('@gatsbyjs/potrace') as { trace: Trace }).trace;
  return trace;
}

/** Longest side the tracer works on: potrace's time grows with the pixel count. */
const TRACE_SIZE = 1024;

/**
 * Traces a raster image into a black-and-white SVG with potrace
 * (experimental: good for logos and line art, crude for photographs).
 * sharp decodes the upload (with the pixel limit) and hands potrace a small
 * PNG of its own making, so potrace's bundled decoder never sees user bytes.
 */
export async function traceToSvg(input: Buffer, limits: ImageLimits): Promise<string> {
  let png: Buffer;
  try {
    png = await (
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
  return new Promise((resolve, reject) => {
    loadTrace()(png, { turdSize: 2, optTolerance: 0.4 }, (err, svg) => {
      if (err || svg === undefined) reject(err ?? new Error('potrace produced nothing'));
      else resolve(svg);
    });
  });
}
