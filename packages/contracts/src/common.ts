import { z } from './zod';

export const Uuid = z.uuid();

/**
 * The shape of an id where a value is checked by hand rather than by a schema
 * (inside a run input, a brand, a reviewer's output, a token's claims): 8-4-4-4-12
 * hexadecimal digits in any letter case, whatever its version bits say.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);

/**
 * An id given by the caller (path, query or body): a uuid in any letter case,
 * read as lowercase, so that one object has one spelling wherever the gateway
 * keys something by id (its caches, its deletion broadcasts).
 */
export const IdParam = z.uuid().toLowerCase();

export const ValidationErrorBody = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number().int()])),
        msg: z.string(),
        type: z.string(),
        input: z.any().optional(),
        ctx: z.record(z.string(), z.any()).optional(),
      }),
    ),
  })
  .openapi('HTTPValidationError');

export const ErrorBody = z
  .object({
    detail: z.string(),
    existing_id: z.uuid().optional().openapi({
      description: 'On 409 for a claimed external_id: the id of the object holding it.',
    }),
  })
  .openapi('Error');

/** A query value that may be given once or repeated (`?tags=a&tags=b`). */
export const repeatable = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).optional());

export const PageLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 20 });

export const PaginationQuery = z.object({
  limit: PageLimit,
  cursor: z.string().optional().openapi({ description: 'The `next_cursor` of the previous page.' }),
});

/** `?owned=true`: only the caller organization's own objects (extension; see docs/catalog.md). */
export const OwnedFlag = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true')
  .openapi({
    type: 'boolean',
    description:
      "Extension: true restricts the list to the caller organization's own objects, of every visibility unless `visibility` is given.",
  });

export const cursorPage = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable(),
    })
    .openapi(name);

export const ExternalId = z.string().min(1).max(255);

/**
 * The largest number of credits one figure may hold (an estimated cost, a
 * node's cost): PostgreSQL stores credits as 32-bit integers, so a larger
 * number would fail at the database instead of being refused here.
 */
export const MAX_CREDITS = 2_147_483_647;

/** An amount of credits a caller sets: a whole number the database can store. */
const CREDITS_RANGE = `Credits are a whole number from 0 to ${MAX_CREDITS}`;
export const Credits = z
  .number({ error: CREDITS_RANGE })
  .int({ error: CREDITS_RANGE })
  .min(0, { error: CREDITS_RANGE })
  .max(MAX_CREDITS, { error: CREDITS_RANGE });
