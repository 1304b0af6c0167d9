import { runOnWorker } from './one-shot-worker';

// sharp's prebuilt libvips reads HEIF containers but decodes only AV1 inside
// them (AVIF): HEVC, what phones write to .heic, is left out of its builds
// for patent reasons. Those images are decoded with libheif compiled to
// WebAssembly (heic-decode), on a worker thread of its own: a 12-megapixel
// photo takes about two seconds of CPU, which on the worker's event loop would
// hold up every other job and the queue locks' renewal.

/** Decoded pixels: RGBA, 8 bits a channel. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const decode = require(workerData.modulePath);
decode({ buffer: workerData.input }).then(
  (image) => parentPort.postMessage({ width: image.width, height: image.height, data: image.data }),
  (err) => parentPort.postMessage({ error: String(err && err.message ? err.message : err) }),
);
`;

/** Decodes an HEVC HEIF's primary image (its rotation and mirroring applied) on a worker thread. */
export async function decodeHevcHeif(input: Buffer): Promise<RawImage> {
  const { width, height, data } = await runOnWorker<{ width: number; height: number; data: Uint8ClampedArray }>(
    WORKER_SOURCE,
    { modulePath: require.resolve('heic-decode'), input },
    // A photo decodes in tens of megabytes; this bounds what a hostile file can take.
    512,
    'HEIF decoder',
  );
  return { width, height, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}
