import { AppError, ValidationError } from '@weft/errors';
import { parse as parseTolerantly, type ParseError } from 'jsonc-parser';

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

/** 1-based line and column (in characters) of a code unit offset in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { line, column: offset - lineStart + 1 };
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
  const before = bytes.subarray(0, at).toString('utf8');
  const { line, column } = lineAndColumn(before, before.length);
  throw new ValidationError([
    {
      loc: ['body'],
      msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels (line ${line}, column ${column}); objects and arrays may nest at most ${MAX_JSON_DEPTH} deep`,
      type: 'json_too_deep',
      ctx: { max_depth: MAX_JSON_DEPTH, line, column },
    },
  ]);
}

// V8's descriptions end in " in JSON at position N". Those without a
// position (`Unexpected token 'x', "{"a": x}" is not valid JSON`) quote the
// input around the error instead: there a tolerant parser finds the offending
// token, and the message names it.
const AT_POSITION = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/;
const QUOTED_INPUT = /, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s;

/** Where the error is (a code unit offset into `text`) and what it is, if it can be told. */
function locateSyntaxError(message: string, text: string): { offset?: number; what: string } {
  const position = AT_POSITION.exec(message);
  if (position) return { offset: Number(position[1]), what: message.replace(AT_POSITION, '') };
  if (message.startsWith('Unexpected end of JSON input')) return { offset: text.length, what: message };
  // Without comments or trailing commas, the first error jsonc-parser finds is the one V8 met.
  const errors: ParseError[] = [];
  parseTolerantly(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return { what: message.replace(QUOTED_INPUT, '') };
  const token = text.slice(first.offset, first.offset + Math.max(1, Math.min(first.length, 20)));
  return { offset: first.offset, what: `Unexpected token '${token}'` };
}

/** The 422 for a body JSON.parse refused, saying what is wrong and at which line and column. */
export function jsonSyntaxError(parseError: { message?: unknown; body?: unknown }): ValidationError {
  const message = typeof parseError.message === 'string' ? parseError.message : 'Invalid JSON';
  const text = typeof parseError.body === 'string' ? parseError.body : '';
  const { offset, what } = locateSyntaxError(message, text);
  if (offset === undefined) {
    return new ValidationError([{ loc: ['body'], msg: `Invalid JSON: ${what}`, type: 'json_invalid' }]);
  }
  const { line, column } = lineAndColumn(text, offset);
  return new ValidationError([
    {
      loc: ['body'],
      msg: `Invalid JSON at line ${line}, column ${column}: ${what}`,
      type: 'json_invalid',
      ctx: { line, column, position: offset },
    },
  ]);
}
