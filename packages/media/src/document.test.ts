import { PDFDocument } from 'pdf-lib';
import { analysePdf } from './document';
import { UnprocessableMediaError } from './image';

// The heap-cap test parses until the cap: about 10 s of CPU, most of it
// collections of a heap nearing its limit, and over a minute on a busy machine.
jest.setTimeout(180_000);

test('a PDF gets its page count', async () => {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 4; i++) doc.addPage();
  expect(await analysePdf(await doc.save())).toEqual({ page_count: 4 });
});

test('an unreadable PDF is unprocessable', async () => {
  await expect(analysePdf(Buffer.from('%PDF-1.4\n%%EOF\n'))).rejects.toThrow(/Unreadable PDF/);
});

test('a PDF of a huge number of objects is refused within the heap cap, not parsed in ours', async () => {
  // 400,000 tiny objects: 18 MB on disk, about 250 MiB live once pdf-lib has
  // built them, twice the cap. (150,000 objects, 95 MiB live, passed the cap
  // or not depending on when the collector ran.)
  const parts = [
    '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>\nendobj\n',
  ];
  for (let i = 4; i < 400_004; i++) parts.push(`${i} 0 obj\n<< /A ${i} /B [1 2 3] >>\nendobj\n`);
  parts.push('trailer\n<< /Root 1 0 R /Size 400004 >>\n%%EOF\n');
  const before = process.memoryUsage().heapUsed;
  const err: unknown = await analysePdf(Buffer.from(parts.join(''))).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnprocessableMediaError);
  expect((err as Error).message).toMatch(/too complex/);
  // The objects were built on the thread's heap, which is gone.
  expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
});
