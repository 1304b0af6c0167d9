import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Storage } from '@weft/storage';
import type { Express } from 'express';
import sharp from 'sharp';
import request from 'supertest';

/** A real PNG of the given size (a colour gradient, so thumbnails and blur hashes have something to show). */
export async function pngBytes(width = 64, height = 48): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.round((x / width) * 255);
      raw[i + 1] = Math.round((y / height) * 255);
      raw[i + 2] = 128;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

export async function jpegBytes(width = 64, height = 48): Promise<Buffer> {
  return sharp(await pngBytes(width, height))
    .jpeg()
    .toBuffer();
}

/** Just enough of a PDF for magic-byte detection. */
export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
);

/** An ISO BMFF `ftyp` box with an mp4 brand: what file-type needs to call it MP4. */
export const MP4_HEADER = Buffer.from('000000186674797069736f6d0000020069736f6d6d703431', 'hex');

/** Bytes that are neither a known binary format nor text. */
export const GARBAGE = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));

export interface UploadOptions {
  filename?: string;
  partName?: string;
  visibility?: string;
  externalId?: string;
  contentType?: string;
}

/** POST /assets/upload with one file part and the given fields. */
export function upload(app: Express, apiKey: string, bytes: Buffer, options: UploadOptions = {}) {
  const req = request(app).post('/assets/upload').set('X-Api-Key', apiKey);
  if (options.visibility !== undefined) req.field('visibility', options.visibility);
  if (options.externalId !== undefined) req.field('external_id', options.externalId);
  if (options.filename !== undefined) req.field('filename', options.filename);
  return req.attach('file', bytes, {
    filename: options.partName ?? 'upload.bin',
    contentType: options.contentType ?? 'application/octet-stream',
  });
}

/** Every key in the bucket: what a failed upload must not have left behind. */
export async function listKeys(storage: Storage): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await storage.client.send(
      new ListObjectsV2Command({ Bucket: storage.bucket, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}
