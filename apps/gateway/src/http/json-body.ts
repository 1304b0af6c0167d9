import { AppError, ValidationError } from '@weft/errors';

/**
 * How deep objects and arrays may nest in a JSON body. A flow, its node
 * params and run inputs nest a handful of levels; this leaves room for any
 * real document while keeping every recursive step after parsing (schema
 * validation, NUL checks, JSON columns, serialising an error's `input`) far
 * from the stack's end. 100,000 nested arrays fit in a 200 KB body.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/**
 * The offset of the first `[` or `{` that opens level `max + 1`, or -1. A
 * scan of the UTF-8 bytes (whose multi-byte sequences never hold ASCII
 * bytes), without recursion and before JSON.parse builds anything: a deep
 * body costs one pass over its bytes, not the parse.
 */
export function offsetBeyondDepth(bytes: Uint8Array, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      if (++depth > max) return i;
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) depth--;
  }
  return -1;
}

function lineAndColumnOfByte(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === NEWLINE) {
      line++;
      lineStart = i + 1;
    }
  }
  const column =
    Buffer.from(bytes.buffer, bytes.byteOffset + lineStart, offset - lineStart).toString('utf8').length + 1;
  return { line, column };
}

function utf8Of(body: Buffer, charset: string | null): Buffer {
  if (charset === null || charset === 'utf-8' || charset === 'utf8') return body;
  let text: string;
  try {
    text = new TextDecoder(charset, { fatal: true }).decode(body);
  } catch {
    throw new AppError(415, `Unsupported charset "${charset}": send JSON encoded as UTF-8`);
  }
  return Buffer.from(text, 'utf8');
}

/**
 * express.json's `verify` hook: refuses a body nested deeper than
 * MAX_JSON_DEPTH before it is parsed (422, with where the limit was crossed).
 */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, charset: string | null): void {
  const bytes = utf8Of(body, charset);
  const at = offsetBeyondDepth(bytes, MAX_JSON_DEPTH);
  if (at === -1) return;
  const { line, column } = lineAndColumnOfByte(bytes, at);
  throw new ValidationError([
    {
      loc: ['body'],
      msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels (line ${line}, column ${column}); objects and arrays may nest at most ${MAX_JSON_DEPTH} deep`,
      type: 'json_too_deep',
      ctx: { max_depth: MAX_JSON_DEPTH, line, column },
    },
  ]);
}
