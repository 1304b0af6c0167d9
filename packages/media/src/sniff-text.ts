// Text formats carry no magic bytes, so they are recognised by what the
// bytes say: valid UTF-8 without binary control characters, then SVG by its
// root element, JSON by parsing, CSV by a consistent column count, Markdown by
// its block syntax, and plain text otherwise.

export type TextFormat = 'svg' | 'json' | 'csv' | 'md' | 'txt';

export interface TextSniff {
  /** The most specific format the content looks like. */
  format: TextFormat;
  /** Text formats a file name may claim for this content without contradicting it. */
  accepts: TextFormat[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The sample as text, or undefined when it is not UTF-8 text. When the sample
 * stops before the end of the file (`complete` false) a multi-byte character
 * may be cut at its end, so up to three trailing bytes are left out.
 */
function decodeUtf8(sample: Uint8Array, complete: boolean): string | undefined {
  const attempts = complete ? [0] : [0, 1, 2, 3];
  for (const cut of attempts) {
    if (cut >= sample.length && sample.length > 0) break;
    try {
      return decoder.decode(sample.subarray(0, sample.length - cut));
    } catch {
      // try a shorter sample
    }
  }
  return undefined;
}

// Tab, line feed, form feed and carriage return are text; other C0 controls and DEL are not.
// eslint-disable-next-line no-control-regex
const BINARY_CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

// One whitespace character per repetition (not `\s+`) keeps the match linear on long blank runs.
const SVG_PROLOGUE = /^(?:\s|<\?xml[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*<svg[\s>/]/i;

function looksLikeCsv(lines: string[]): boolean {
  if (lines.length < 2) return false;
  const columns = lines.map(countCsvColumns);
  return columns[0]! > 1 && columns.every((c) => c === columns[0]);
}

/** Columns of one CSV line: commas outside double quotes, plus one. */
function countCsvColumns(line: string): number {
  let count = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) count++;
  }
  return count;
}

const MARKDOWN_BLOCKS = [
  /^#{1,6}\s+\S/m, // heading
  /^```/m, // fenced code
  /^\s{0,3}[-*+]\s+\S/m, // bullet list
  /^\s{0,3}\d{1,9}[.)]\s+\S/m, // numbered list
  /^>\s?\S/m, // block quote
  /\[[^\]\n]+\]\([^)\s]+\)/, // link
];

/**
 * Recognises text content in the first bytes of a file. `complete` says the
 * sample is the whole file (JSON can then be parsed, not just guessed).
 * Returns undefined for anything that is not text.
 */
export function sniffText(sample: Uint8Array, complete: boolean): TextSniff | undefined {
  if (sample.length === 0) return undefined;
  let text = decodeUtf8(sample, complete);
  if (text === undefined) return undefined;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (BINARY_CONTROL.test(text) || text.trim() === '') return undefined;

  if (SVG_PROLOGUE.test(text)) return { format: 'svg', accepts: ['svg'] };

  const trimmed = text.trimStart();
  const accepts: TextFormat[] = ['txt', 'csv', 'md'];
  let isJson = false;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    if (complete) {
      try {
        JSON.parse(text);
        isJson = true;
      } catch {
        isJson = false;
      }
    } else {
      // Only a prefix is known: an object or array start is the best evidence there is.
      isJson = true;
    }
  }
  if (isJson) return { format: 'json', accepts: ['json', ...accepts] };

  const lines = text.split(/\r?\n/);
  // A line cut by the end of the sample says nothing about its column count.
  if (!complete) lines.pop();
  const sampleLines = lines.filter((l) => l.trim() !== '').slice(0, 50);
  if (looksLikeCsv(sampleLines)) return { format: 'csv', accepts };
  if (MARKDOWN_BLOCKS.some((re) => re.test(text))) return { format: 'md', accepts };
  return { format: 'txt', accepts };
}
