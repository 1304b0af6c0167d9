import { z } from '@weft/contracts';
import { ValidationError } from '@weft/errors';
import { parsePart } from './validation';

// The `msg` of each kind of 422 entry: what was expected, and what came.

function issuesOf(schema: z.ZodType, value: unknown) {
  try {
    parsePart('body', schema, value);
  } catch (err) {
    if (err instanceof ValidationError) return err.issues.map(({ loc, msg }) => ({ loc, msg }));
    throw err;
  }
  throw new Error('expected a validation error');
}

const Body = z.object({
  name: z.string().min(1).max(5).optional(),
  count: z.number().int().min(1).max(10).optional(),
  tags: z.array(z.string()).min(1).optional(),
  flag: z.boolean().optional(),
  strict: z.object({ a: z.string() }).strict().optional(),
  shape: z
    .discriminatedUnion('type', [z.object({ type: z.literal('a'), x: z.string() }), z.object({ type: z.literal('b') })])
    .optional(),
  output: z
    .union([z.object({ prompts: z.array(z.string()) }).strict(), z.object({ ids: z.array(z.uuid()) }).strict()])
    .optional(),
});

test.each([
  [{ name: '' }, ['body', 'name'], 'expected at least 1 character'],
  [{ name: 'toolong' }, ['body', 'name'], 'expected at most 5 characters'],
  [{ count: 1.5 }, ['body', 'count'], 'expected an integer, got a number with a fraction (1.5)'],
  [{ count: 11 }, ['body', 'count'], 'expected a number <= 10'],
  [{ tags: [] }, ['body', 'tags'], 'expected at least 1 item'],
  [{ flag: 'yes' }, ['body', 'flag'], 'expected a boolean (true or false), got a string'],
  [{ strict: { a: 'x', b: 1 } }, ['body', 'strict'], 'unknown field "b"'],
  [{ shape: { type: 'c' } }, ['body', 'shape', 'type'], 'expected one of "a", "b", got "c"'],
  [{ shape: { type: 'a', x: null } }, ['body', 'shape', 'x'], 'expected a string, got null'],
  // A union none of whose options matched is explained by the closest one.
  [{ output: { prompts: [1] } }, ['body', 'output', 'prompts', 0], 'expected a string, got a number'],
  [{ output: 5 }, ['body', 'output'], 'expected an object, got a number'],
  ['text', ['body'], 'expected an object, got a string'],
  [undefined, ['body'], 'A JSON body is required: send one with Content-Type: application/json'],
])('%j', (value, loc, msg) => {
  expect(issuesOf(Body, value)).toEqual([{ loc, msg }]);
});
