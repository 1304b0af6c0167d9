import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';

/** POST /assets/upload of a file on disk, streamed (never held in memory); resolves with the asset id. */
export function uploadFile(base: string, auth: Record<string, string>, file: string): Promise<string> {
  const boundary = `----weftbench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = statSync(file).size;
  async function* body() {
    yield head;
    yield* createReadStream(file, { highWaterMark: 1024 * 1024 });
    yield tail;
  }
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/assets/upload`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) reject(new Error(`upload ${file}: ${res.statusCode} ${text}`));
        else resolve((JSON.parse(text) as { id: string }).id);
      });
    });
    req.on('error', reject);
    Readable.from(body()).pipe(req);
  });
}
