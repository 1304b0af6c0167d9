import fs from 'node:fs/promises';

// What a PCM WAV file's header says: read from its first bytes, so a node
// describes the speech it wrote without loading or probing it.

export interface WavInfo {
  sampleRate: number;
  channels: number;
  /** Seconds of sound in the data chunk. */
  duration: number;
}

/** The header of the RIFF/WAVE PCM file at `path`; undefined when it is not one. */
export async function wavInfo(path: string): Promise<WavInfo | undefined> {
  const file = await fs.open(path, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const { size } = await file.stat();
    return parseHeader(head.subarray(0, bytesRead), size);
  } finally {
    await file.close();
  }
}

function parseHeader(head: Buffer, fileSize: number): WavInfo | undefined {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') {
    return undefined;
  }
  let format: { channels: number; sampleRate: number; byteRate: number } | undefined;
  for (let at = 12; at + 8 <= head.length;) {
    const id = head.toString('ascii', at, at + 4);
    const size = head.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= head.length) {
      format = {
        channels: head.readUInt16LE(at + 10),
        sampleRate: head.readUInt32LE(at + 12),
        byteRate: head.readUInt32LE(at + 16),
      };
    } else if (id === 'data' && format && format.byteRate > 0) {
      // A writer that could not seek back leaves the size unset: the rest of the file is data.
      const bytes = Math.min(size, fileSize - at - 8);
      return {
        sampleRate: format.sampleRate,
        channels: format.channels,
        duration: Math.round((bytes / format.byteRate) * 1000) / 1000,
      };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}
