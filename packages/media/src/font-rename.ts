// fontconfig, which Pango asks for a font by family name, keeps every font
// file it was given for the life of the process, system fonts included: two
// files naming the same family (an organization's edit of a well-known font,
// or a font named like one installed) are one family to it, and it draws in
// whichever it prefers. So each font is handed over under a family name of
// its own, written into its `name` table.

/** Name ids that carry the family, full and PostScript names (OpenType `name` table). */
const FAMILY_IDS = new Set([1, 4, 6, 16, 17, 21, 22]);

interface NameRecord {
  platform: number;
  encoding: number;
  language: number;
  nameId: number;
  text: Buffer;
}

interface Table {
  tag: string;
  data: Buffer;
}

function readTables(sfnt: Buffer): { version: number; tables: Table[] } {
  const count = sfnt.readUInt16BE(4);
  const tables: Table[] = [];
  for (let i = 0; i < count; i++) {
    const record = 12 + i * 16;
    const offset = sfnt.readUInt32BE(record + 8);
    const length = sfnt.readUInt32BE(record + 12);
    if (offset + length > sfnt.length) throw new Error('a table lies outside the file');
    tables.push({ tag: sfnt.toString('latin1', record, record + 4), data: sfnt.subarray(offset, offset + length) });
  }
  return { version: sfnt.readUInt32BE(0), tables };
}

function checksum(data: Buffer): number {
  const padded = Buffer.alloc((data.length + 3) & ~3);
  data.copy(padded);
  let sum = 0;
  for (let i = 0; i < padded.length; i += 4) sum = (sum + padded.readUInt32BE(i)) >>> 0;
  return sum;
}

function writeTables(version: number, tables: Table[]): Buffer {
  const log2 = Math.floor(Math.log2(tables.length));
  const searchRange = 2 ** log2 * 16;
  const header = Buffer.alloc(12 + tables.length * 16);
  header.writeUInt32BE(version, 0);
  header.writeUInt16BE(tables.length, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(log2, 8);
  header.writeUInt16BE(tables.length * 16 - searchRange, 10);
  const bodies: Buffer[] = [];
  let offset = header.length;
  tables.forEach((table, i) => {
    const record = 12 + i * 16;
    header.write(table.tag, record, 4, 'latin1');
    header.writeUInt32BE(checksum(table.data), record + 4);
    header.writeUInt32BE(offset, record + 8);
    header.writeUInt32BE(table.data.length, record + 12);
    const padded = Buffer.alloc((table.data.length + 3) & ~3);
    table.data.copy(padded);
    bodies.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([header, ...bodies]);
}

function readNames(name: Buffer): NameRecord[] {
  const count = name.readUInt16BE(2);
  const storage = name.readUInt16BE(4);
  const records: NameRecord[] = [];
  for (let i = 0; i < count; i++) {
    const at = 6 + i * 12;
    const [platform, encoding, language, nameId, length, offset] = [0, 2, 4, 6, 8, 10].map((d) =>
      name.readUInt16BE(at + d),
    ) as [number, number, number, number, number, number];
    // Records of a language tag (format 1) are left out with the tags.
    if (language >= 0x8000) continue;
    const start = storage + offset;
    if (start + length > name.length) throw new Error('a name lies outside its table');
    records.push({ platform, encoding, language, nameId, text: name.subarray(start, start + length) });
  }
  return records;
}

function writeNames(records: NameRecord[]): Buffer {
  const header = Buffer.alloc(6 + records.length * 12);
  header.writeUInt16BE(0, 0);
  header.writeUInt16BE(records.length, 2);
  header.writeUInt16BE(header.length, 4);
  let offset = 0;
  records.forEach((r, i) => {
    const at = 6 + i * 12;
    [r.platform, r.encoding, r.language, r.nameId, r.text.length, offset].forEach((v, j) =>
      header.writeUInt16BE(v, at + j * 2),
    );
    offset += r.text.length;
  });
  return Buffer.concat([header, ...records.map((r) => r.text)]);
}

const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

/**
 * The font with `family` (ASCII letters, digits and spaces) as its family,
 * full and PostScript names, everything else as it was. Throws when the
 * font's tables cannot be read.
 */
export function renameFontFamily(sfnt: Buffer, family: string): Buffer {
  const { version, tables } = readTables(sfnt);
  const name = tables.find((t) => t.tag === 'name');
  if (!name) throw new Error('the font has no name table');
  const kept = readNames(name.data).filter((r) => !FAMILY_IDS.has(r.nameId));
  // Windows, Unicode BMP, US English: the records fontconfig reads first.
  const ours = [1, 4, 6].map((nameId) => ({
    platform: 3,
    encoding: 1,
    language: 0x409,
    nameId,
    text: utf16be(nameId === 6 ? family.replace(/ /g, '-') : family),
  }));
  const records = [...kept, ...ours].sort(
    (a, b) => a.platform - b.platform || a.encoding - b.encoding || a.language - b.language || a.nameId - b.nameId,
  );
  name.data = writeNames(records);
  return writeTables(version, tables);
}
