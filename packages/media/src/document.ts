import { PDFDocument } from 'pdf-lib';
import type { AssetMetadata } from './image';
import { UnprocessableMediaError } from './image';

/**
 * A PDF's page count. pdf-lib parses the document's structure (cross-reference
 * table or streams, page tree) without rendering anything; encrypted documents
 * are counted too, since their page tree is not encrypted.
 */
export async function analysePdf(bytes: Uint8Array): Promise<AssetMetadata> {
  try {
    const pdf = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
    return { page_count: pdf.getPageCount() };
  } catch (err) {
    throw new UnprocessableMediaError(`Unreadable PDF: ${(err as Error).message}`);
  }
}
