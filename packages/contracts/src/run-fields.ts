import { ExternalId } from './common';
import { FailureReasonSchema, FlowRunStatusSchema } from './enums';
import { z } from './zod';

// Fields shared by agent runs and app runs (docs/api.md#runs), spread
// into each schema so the generated OpenAPI lists them flat.

export const AppRunOnly = { id: z.uuid(), app_id: z.uuid() };

export const RunSummaryCommon = {
  external_id: ExternalId.nullable().optional(),
  status: FlowRunStatusSchema,
  progress: z.number().min(0).max(1).default(0),
  created_at: z.iso.datetime(),
  started_at: z.iso.datetime().nullable().optional(),
  completed_at: z.iso.datetime().nullable().optional(),
  cost: z.number().int().nullable().optional(),
};

export const RunCommon = <I extends z.ZodType, R extends z.ZodType>(input: I, result: R) => ({
  ...RunSummaryCommon,
  current_node: z.string().nullable().optional().openapi({
    description: 'Type of the node now executing; only present while in_progress.',
  }),
  inputs: z.array(input).default([]),
  results: z.array(result).default([]),
  error: z.string().nullable().optional(),
  failure_reason: FailureReasonSchema.nullable().optional(),
});
