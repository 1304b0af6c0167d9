import type { z } from 'zod';

/**
 * Asserts that a response body is exactly what the contract schema describes:
 * it parses, and parsing changes nothing, so every field with a documented
 * default (`has_human_review`, `required`, …) is present and no undeclared
 * field slipped in. Returns the typed body.
 */
export function expectSchema<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new Error(
      `Body does not match the contract:\n${result.error.issues
        .map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('\n')}\nbody: ${JSON.stringify(body, null, 2)}`,
    );
  }
  expect(result.data).toStrictEqual(body);
  return result.data;
}
