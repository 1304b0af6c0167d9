import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

// Decompression bombs: small files whose pixels, once decoded, take hundreds of
// MiB. Made here in milliseconds, where encoding a real 16000×16000 JPEG takes
// sharp about 20 s of CPU.

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A complete, valid black 1-bit greyscale PNG of width × height: every row is
 * there, so a decoder that accepts it renders all of it (16000×16000 is about
 * 32 KiB of file and 256 MB of decoded pixels).
 */
export function blackPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const row = 1 + Math.ceil(width / 8); // filter byte, then the row's bits
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.alloc(row * height), { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Start-of-frame markers (baseline, extended, progressive): the frame's height and width follow. */
const START_OF_FRAME = new Set([0xc0, 0xc1, 0xc2]);

/**
 * A JPEG whose frame header declares width × height, carrying the scan data of
 * a 64×64 one: a decoder that believes the header allocates the whole frame.
 * `orientation` is written as EXIF (6: the viewer turns it a quarter).
 */
export async function jpegDeclaring(width: number, height: number, orientation = 1): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: 'white' } })
    .jpeg()
    .withMetadata({ orientation })
    .toBuffer();
  for (let at = 2; at + 4 < jpeg.length;) {
    if (jpeg[at] !== 0xff) throw new Error(`jpegDeclaring: no marker at byte ${at}`);
    const marker = jpeg[at + 1]!;
    if (START_OF_FRAME.has(marker)) {
      jpeg.writeUInt16BE(height, at + 5);
      jpeg.writeUInt16BE(width, at + 7);
      return jpeg;
    }
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  throw new Error('jpegDeclaring: no start-of-frame marker');
}
