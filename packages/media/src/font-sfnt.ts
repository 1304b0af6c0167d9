import { inflateSync } from 'node:zlib';
import { UnprocessableMediaError } from './image';
import { runOnWorker } from './one-shot-worker';

// Pango (through sharp's fontconfig and FreeType builds) loads TrueType and
// OpenType files but not WOFF or WOFF2: given one, it silently draws in
// another font. Web fonts are therefore unpacked to the sfnt they wrap.

/** Larger than any real font; a "font" that unpacks to more is refused. */
const MAX_SFNT_BYTES = 64 * 1024 * 1024;

export interface Sfnt {
  bytes: Buffer;
  /** `otf` for CFF outlines, `ttf` for TrueType. */
  extension: 'ttf' | 'otf';
}

const tagOf = (bytes: Buffer) => bytes.subarray(0, 4).toString('latin1');

/** The TrueType/OpenType font a font file holds: as it is, or unpacked from WOFF or WOFF2. */
export async function toSfnt(bytes: Buffer): Promise<Sfnt> {
  const tag = tagOf(bytes);
  const sfnt = tag === 'wOFF' ? fromWoff(bytes) : tag === 'wOF2' ? await fromWoff2(bytes) : bytes;
  return { bytes: sfnt, extension: tagOf(sfnt) === 'OTTO' ? 'otf' : 'ttf' };
}

/** WOFF 1.0 (W3C): each table zlib-compressed, or stored when that saved nothing. */
function fromWoff(woff: Buffer): Buffer {
  try {
    const flavor = woff.readUInt32BE(4);
    const numTables = woff.readUInt16BE(12);
    const totalSfntSize = woff.readUInt32BE(16);
    if (totalSfntSize > MAX_SFNT_BYTES) throw new Error('the font is too large');
    const out = Buffer.alloc(totalSfntSize);
    const log2 = Math.floor(Math.log2(numTables));
    const searchRange = 2 ** log2 * 16;
    out.writeUInt32BE(flavor, 0);
    out.writeUInt16BE(numTables, 4);
    out.writeUInt16BE(searchRange, 6);
    out.writeUInt16BE(log2, 8);
    out.writeUInt16BE(numTables * 16 - searchRange, 10);
    let offset = 12 + numTables * 16;
    for (let i = 0; i < numTables; i++) {
      const entry = 44 + i * 20;
      const [tableOffset, compLength, origLength, checksum] = [4, 8, 12, 16].map((d) => woff.readUInt32BE(entry + d));
      const stored = woff.subarray(tableOffset!, tableOffset! + compLength!);
      const table = compLength! < origLength! ? inflateSync(stored, { maxOutputLength: origLength! }) : stored;
      if (table.length !== origLength || offset + table.length > out.length) throw new Error('a table is malformed');
      woff.copy(out, 12 + i * 16, entry, entry + 4);
      out.writeUInt32BE(checksum!, 12 + i * 16 + 4);
      out.writeUInt32BE(offset, 12 + i * 16 + 8);
      out.writeUInt32BE(origLength!, 12 + i * 16 + 12);
      table.copy(out, offset);
      offset += (table.length + 3) & ~3;
    }
    return out;
  } catch (err) {
    throw new UnprocessableMediaError(`not a WOFF font: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const WOFF2_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const decompress = require(workerData.modulePath);
decompress(workerData.input).then(
  (sfnt) => parentPort.postMessage({ sfnt }),
  (err) => parentPort.postMessage({ error: String(err && err.message ? err.message : err) }),
);
`;

/** WOFF2: Google's decoder (wawoff2, WebAssembly) on a worker thread of its own, its heap bounded. */
async function fromWoff2(woff2: Buffer): Promise<Buffer> {
  try {
    const { sfnt } = await runOnWorker<{ sfnt: Uint8Array }>(
      WOFF2_WORKER,
      { modulePath: require.resolve('wawoff2/decompress'), input: woff2 },
      256,
      'WOFF2 decoder',
    );
    if (sfnt.byteLength > MAX_SFNT_BYTES) throw new Error('the font is too large');
    return Buffer.from(sfnt.buffer, sfnt.byteOffset, sfnt.byteLength);
  } catch (err) {
    throw new UnprocessableMediaError(`not a WOFF2 font: ${err instanceof Error ? err.message : String(err)}`);
  }
}
