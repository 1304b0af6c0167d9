import { z } from 'zod';
import type { Part } from './validation';

// What a 422's `msg` says: what was expected and what came instead, in plain
// words ("expected a string, got a number"). `loc` says where.

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'a boolean (true or false)',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  tuple: 'an array',
  null: 'null',
  date: 'a date',
};

function expectedName(expected: string): string {
  return EXPECTED[expected] ?? expected;
}

/** The kind of a JSON value, as a message names it. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(value) ? 'a number' : `a number with a fraction (${String(value)})`;
    case 'boolean':
      return `a boolean (${String(value)})`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function orList(items: string[]): string {
  const unique = [...new Set(items)];
  return unique.length <= 1 ? (unique[0] ?? '') : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}

/** A value as JSON, cut short: `input` carries it whole. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? describeValue(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function quoted(values: readonly unknown[]): string {
  return values.map(shown).join(', ');
}

function missing(part: Part, path: Array<string | number>): string {
  if (part === 'body' && path.length === 0)
    return 'A JSON body is required: send one with Content-Type: application/json';
  return 'Field required';
}

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : (issue as z.core.$ZodIssueTooBig).maximum);
  const inclusive = issue.inclusive !== false;
  const atLeast = small ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'fewer than';
  switch (issue.origin) {
    case 'string':
      return `expected ${atLeast} ${bound} character${bound === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      return `expected ${atLeast} ${bound} item${bound === 1 ? '' : 's'}`;
    default: {
      const op = small ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
      return `expected a number ${op} ${bound}`;
    }
  }
}

/** The issue carries a message its schema gave (`.max(n, 'why')`), not zod's default for its code. */
function hasOwnMessage(issue: z.core.$ZodIssue, input: unknown): boolean {
  // The default is worded from the value, which a finished issue no longer carries.
  const raw = { ...issue, input } as Parameters<NonNullable<z.core.$ZodConfig['localeError']>>[0];
  const fallback = z.config().localeError?.(raw);
  const text = typeof fallback === 'string' ? fallback : fallback?.message;
  return text !== undefined && issue.message !== text;
}

export function issueMessage(
  issue: z.core.$ZodIssue,
  input: unknown,
  part: Part,
  path: Array<string | number>,
): string {
  // A schema's own words say it best; ours replace zod's generic ones only.
  if (hasOwnMessage(issue, input)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return missing(part, path);
      return `expected ${expectedName(issue.expected)}, got ${describeValue(input)}`;
    case 'invalid_union': {
      if (input === undefined) return missing(part, path);
      const options = (issue as { options?: unknown[] }).options;
      if (options) return `expected one of ${quoted(options)}, got ${shown(input)}`;
      const expected = issue.errors.flatMap((option) =>
        option.flatMap((i) => (i.code === 'invalid_type' ? [expectedName(i.expected)] : [])),
      );
      if (expected.length === 0) return issue.message;
      return `expected ${orList(expected)}, got ${describeValue(input)}`;
    }
    case 'invalid_value':
      return `expected ${issue.values.length === 1 ? '' : 'one of '}${quoted(issue.values)}, got ${shown(input)}`;
    case 'too_small':
    case 'too_big':
      return sizeMessage(issue);
    case 'invalid_format':
      if (issue.format === 'uuid' || issue.format === 'guid') {
        return `expected a UUID (like 0190f2a4-5b6c-7d8e-9f00-112233445566), got ${shown(input)}`;
      }
      return issue.message;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${quoted(issue.keys)}`;
    default:
      return issue.message;
  }
}
