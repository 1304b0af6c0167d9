// HTTP Range for downloads (RFC 9110 14.1.2), one range per request: enough
// for media players seeking and for resumed downloads. Several ranges, or a
// header that does not parse, are ignored and the whole file is sent, as the
// RFC allows.

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

const SINGLE = /^bytes=(\d*)-(\d*)$/;

/** The range to send, 'unsatisfiable' (416), or undefined for the whole file. */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = SINGLE.exec(header.trim());
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    // Suffix: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
