import { AgentOutputSchema } from './agents';
import { Credits, cursorPage, OwnedFlag, PaginationQuery, repeatable } from './common';
import { AppInputTypeSchema, AppVisibilitySchema } from './enums';
import { z } from './zod';

export const AppInputSchema = z
  .object({
    id: z.string().min(1),
    type: AppInputTypeSchema,
    name: z.string().min(1),
    required: z.boolean(),
    options: z.array(z.string()).nullable().optional(),
    min_selections: z.number().int().min(0).nullable().optional(),
    max_selections: z.number().int().min(1).nullable().optional(),
  })
  .openapi('AppInput');

export const AppOutputSchema = AgentOutputSchema.openapi('AppOutput');

export const AppSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    avatar_url: z.string().nullable().optional(),
    visibility: AppVisibilitySchema,
    inputs: z.array(AppInputSchema).optional(),
    outputs: z.array(AppOutputSchema).optional(),
    estimated_cost: z.number().int(),
    // Extension (additive): the agent whose flow the app runs.
    agent_id: z.uuid().optional(),
  })
  .openapi('App');

export const AppSummarySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    avatar_url: z.string().nullable().optional(),
    visibility: AppVisibilitySchema,
    estimated_cost: z.number().int(),
    inputs: z.array(AppInputSchema).optional(),
  })
  .openapi('AppSummary');

export const AppPageSchema = cursorPage(AppSummarySchema, 'CursorPage_AppSummary');

export const ListAppsQuery = PaginationQuery.extend({
  visibility: repeatable(AppVisibilitySchema).openapi({
    description:
      "Repeatable. private / workspace / shared: the caller organization's own apps of that visibility; public: " +
      "every organization's public apps, the caller's own included. Omitted: every app of the caller organization, " +
      'whatever its visibility.',
  }),
  search: z.string().max(200).optional().openapi({ description: 'Case-insensitive substring of the name.' }),
  owned: OwnedFlag,
});

export const CreateAppBody = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(10_000),
    avatar_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional(),
    visibility: AppVisibilitySchema.default('private'),
    agent_id: z.uuid(),
    estimated_cost: Credits.optional(),
    inputs: z.array(AppInputSchema),
    outputs: z.array(AppOutputSchema),
  })
  .openapi('CreateApp');

export type AppInput = z.infer<typeof AppInputSchema>;
export type App = z.infer<typeof AppSchema>;
export type AppSummary = z.infer<typeof AppSummarySchema>;
export type AppOutput = z.infer<typeof AppOutputSchema>;
