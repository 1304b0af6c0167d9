import type { AssetMetadata } from './image';
import { UnprocessableMediaError } from './image';

/**
 * A PDF's page count. pdf-lib parses the document's structure (cross-reference
 * table or streams, page tree) without rendering anything; encrypted documents
 * are counted too, since their page tree is not encrypted.
 *
 * pdf-lib is loaded on first use: only the worker analyses documents, and
 * the gateway, which imports this package for content detection, need not
 * keep it in its heap.
 */
export async function analysePdf(bytes: Uint8Array): Promise<AssetMetadata> {
  const { PDFDocument } = await import('pdf-lib');
  try {
    const pdf = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
    return { page_count: pdf.getPageCount() };
  } catch (err) {
    throw new UnprocessableMediaError(`Unreadable PDF: ${(err as Error).message}`);
  }
}
