import type { AssetMetadata } from './image';
import { UnprocessableMediaError } from './image';
import { runOnWorker, WorkerJobError } from './one-shot-worker';

/**
 * Heap the page count may take. pdf-lib builds every object of the document:
 * a 7 MB PDF of 150,000 tiny objects keeps 95 MiB live (more at its peak,
 * before the collector runs) and takes three seconds of CPU,
 * while ordinary documents (text, a few images) stay within tens of MB.
 */
const PDF_HEAP_MB = 128;

// pdf-lib runs on a worker thread of its own: its heap is capped there
// (resourceLimits), and a slow parse does not hold up the worker's event
// loop (other jobs, the queue locks' renewal), as for HEIC (heic.ts).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFDocument } = require(workerData.modulePath);
(async () => {
  const pdf = await PDFDocument.load(workerData.bytes, { ignoreEncryption: true, updateMetadata: false });
  return pdf.getPageCount();
})().then(
  (pageCount) => parentPort.postMessage({ pageCount }),
  (err) => parentPort.postMessage({ error: String(err && err.message ? err.message : err) }),
);
`;

/**
 * A PDF's page count. pdf-lib parses the document's structure (cross-reference
 * table or streams, page tree) without rendering anything; encrypted documents
 * are counted too, since their page tree is not encrypted. A document too
 * complex to count within PDF_HEAP_MB fails as unprocessable: it would again.
 *
 * pdf-lib is loaded by the thread only: the gateway, which imports this
 * package for content detection, never loads it.
 */
export async function analysePdf(bytes: Uint8Array): Promise<AssetMetadata> {
  try {
    const { pageCount } = await runOnWorker<{ pageCount: number }>(
      WORKER_SOURCE,
      { modulePath: require.resolve('pdf-lib'), bytes },
      PDF_HEAP_MB,
      'PDF page counter',
    );
    return { page_count: pageCount };
  } catch (err) {
    if (err instanceof WorkerJobError) throw new UnprocessableMediaError(`Unreadable PDF: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      throw new UnprocessableMediaError(`The PDF is too complex to count its pages within ${PDF_HEAP_MB} MB`);
    }
    throw err;
  }
}
