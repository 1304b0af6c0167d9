/** A place in a request where text PostgreSQL cannot store sits, and what to tell the caller. */
export interface UnstorableText {
  /** Keys and indexes from the value's root to the string (or to the object whose key it is). */
  path: Array<string | number>;
  msg: string;
  type: 'string_nul' | 'string_unicode';
}

// With the `u` flag a well-formed surrogate pair is one code point (an emoji, say), so
// `\p{Cs}` matches only a half without its other half.
const LONE_SURROGATE = /\p{Cs}/u;

function problem(text: string): Omit<UnstorableText, 'path'> | undefined {
  if (text.includes('\u0000')) {
    return { msg: 'Text must not contain the NUL character (\\u0000)', type: 'string_nul' };
  }
  if (!LONE_SURROGATE.test(text)) return undefined;
  return {
    msg: 'Text must be valid Unicode: a lone UTF-16 surrogate (\\ud800–\\udfff without its pair) cannot be stored',
    type: 'string_unicode',
  };
}

/**
 * The first string (or object key) in `value` that PostgreSQL cannot store,
 * if any: a NUL character, which text and jsonb refuse, or a lone UTF-16
 * surrogate, which jsonb refuses and text would store as U+FFFD (two
 * different keys becoming one). Every part of every request is checked with
 * this before its schema, so such text is a 422 naming where it sits instead
 * of a failure at the database, or a silent change. Iterative: a deeply
 * nested value cannot exhaust the stack.
 */
export function findUnstorableText(value: unknown): UnstorableText | undefined {
  const stack: Place[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const inKey = typeof place.key === 'string' ? problem(place.key) : undefined;
    if (inKey) return { path: pathOf(place), ...inKey };
    const item = place.value;
    if (typeof item === 'string') {
      const inText = problem(item);
      if (inText) return { path: pathOf(place), ...inText };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    // Children are pushed last first, so the first problem in document order is the one reported.
    const entries: Array<[string | number, unknown]> = Array.isArray(item) ? [...item.entries()] : Object.entries(item);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push({ value: child, key, parent: place });
    }
  }
  return undefined;
}

/** A value met in the walk; its path is only spelled out for the one reported. */
interface Place {
  value: unknown;
  key: string | number | undefined;
  parent: Place | undefined;
}

function pathOf(place: Place): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}
