import { ValidationError, type ValidationIssue } from '@weft/errors';
import { findUnstorableText } from '@weft/contracts';
import type { z } from 'zod';
import { issueMessage } from './issue-message';

export type Part = 'body' | 'query' | 'path' | 'header';

// Zod's issue codes rendered in the style of docs/api.md#error-bodies (FastAPI's
// vocabulary), which is what clients of this interface already handle.
function issueType(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return 'missing';
      return `${issue.expected}_type`;
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `${issue.origin === 'string' ? 'string' : 'list'}_too_short`
        : issue.inclusive === false
          ? 'greater_than'
          : 'greater_than_equal';
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `${issue.origin === 'string' ? 'string' : 'list'}_too_long`
        : issue.inclusive === false
          ? 'less_than'
          : 'less_than_equal';
    case 'invalid_format':
      return `${issue.format}_parsing`;
    case 'invalid_value':
      return 'enum';
    case 'unrecognized_keys':
      return 'extra_forbidden';
    default:
      return 'value_error';
  }
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function issueCtx(issue: z.core.$ZodIssue): Record<string, unknown> | undefined {
  if (issue.code === 'too_small') return { min: Number(issue.minimum) };
  if (issue.code === 'too_big') return { max: Number(issue.maximum) };
  if (issue.code === 'invalid_value') return { expected: issue.values };
  return undefined;
}

type Path = Array<string | number>;

/**
 * The issues to report for one of zod's: a union none of whose options
 * matched says why in terms of the option that came closest, rather than
 * zod's bare "Invalid input".
 */
function unfold(issue: z.core.$ZodIssue, at: Path): Array<{ issue: z.core.$ZodIssue; path: Path }> {
  const path = [...at, ...issue.path.filter((p): p is string | number => typeof p !== 'symbol')];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [{ issue, path }];
  if (issue.errors.every((option) => option.every((i) => i.code === 'invalid_type' && i.path.length === 0))) {
    return [{ issue, path }];
  }
  const closest = issue.errors.reduce((best, option) => (option.length < best.length ? option : best));
  return closest.flatMap((inner) => unfold(inner, path));
}

export function toValidationIssues(part: Part, error: z.ZodError, raw: unknown): ValidationIssue[] {
  return error.issues
    .flatMap((issue) => unfold(issue, []))
    .map(({ issue, path }) => {
      const input = valueAt(raw, path);
      const out: ValidationIssue = {
        loc: [part, ...path],
        msg: issueMessage(issue, input, part, path),
        type: issueType(issue, input),
      };
      if (input !== undefined) out.input = input;
      const ctx = issueCtx(issue);
      if (ctx) out.ctx = ctx;
      return out;
    });
}

export function parsePart<S extends z.ZodType>(part: Part, schema: S, raw: unknown): z.output<S> {
  // Before the schema: such text would pass it, then fail at the database or be changed there.
  const unstorable = findUnstorableText(raw);
  if (unstorable) {
    throw new ValidationError([{ loc: [part, ...unstorable.path], msg: unstorable.msg, type: unstorable.type }]);
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw new ValidationError(toValidationIssues(part, result.error, raw));
  return result.data;
}
