import { AppRunOnly, RunCommon, RunSummaryCommon } from './run-fields';
import { cursorPage, ExternalId, IdParam, PaginationQuery } from './common';
import { DataTypeSchema, FlowRunStatusSchema, NodeStatusSchema, NodeTypeSchema, ReviewDecisionSchema } from './enums';
import { RunWebhookFields } from './webhooks';
import { z } from './zod';

// Runs of agents and apps, and review decisions: docs/api.md#runs and #reviews.

/** Plain text for text inputs, `{asset_ids: [...]}` for asset inputs (docs/api.md#run-inputs). */
export const RunInputSchema = z
  .object({
    id: z.string().min(1),
    value: z.union([z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())]),
  })
  .openapi('RunInput');

/** One per output of the agent or app (docs/api.md#results). */
export const RunResultSchema = z
  .object({
    id: z.string(),
    type: DataTypeSchema,
    value: z
      .union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .nullable()
      .optional(),
    description: z.string().nullable().optional(),
  })
  .openapi('RunResult');

export const ProposedOutputSchema = z
  .union([z.object({ prompts: z.array(z.string()) }).strict(), z.object({ asset_ids: z.array(IdParam) }).strict()])
  .openapi('ReviewOutput', {
    description: '`{prompts: [...]}` for text reviews, `{asset_ids: [...]}` for image, video or audio reviews.',
  });

export const PendingReviewSchema = z
  .object({
    id: z.uuid(),
    node_id: z.string().openapi({ description: 'The human_review node the review belongs to.' }),
    proposed_output: ProposedOutputSchema,
  })
  .openapi('PendingReview');

/** The full app run. */
export const AppRunSchema = z
  .object({
    ...AppRunOnly,
    ...RunCommon(RunInputSchema, RunResultSchema),
    // Extension (additive): an app over an agent with a review step parks like the agent run does,
    // and its reviews are decided through POST /runs/{run_id}/reviews/{review_id}.
    awaiting_human_review: z.boolean().default(false),
    pending_reviews: z.array(PendingReviewSchema).default([]),
  })
  .openapi('AppRun');

/** The full agent run, pinned to a version (docs/api.md#versions). */
export const RunSchema = z
  .object({
    id: z.uuid(),
    agent_id: z.uuid(),
    ...RunCommon(RunInputSchema, RunResultSchema),
    awaiting_human_review: z.boolean().default(false),
    pending_reviews: z.array(PendingReviewSchema).default([]),
    agent_version: z.number().int().openapi({ description: 'The agent version the run is pinned to.' }),
  })
  .openapi('Run');

/** The data of a `node` event of a run's event stream (docs/api.md#following-a-run-live). */
export const RunNodeEventSchema = z
  .object({
    node_id: z.string().openapi({ description: 'The node of the flow.' }),
    type: NodeTypeSchema,
    status: NodeStatusSchema.openapi({
      description:
        '`pending` (waiting for its upstream nodes), `running` (queued or executing), `waiting_review` (its ' +
        'proposal waits for a review decision), `completed`, `skipped` (on a route not taken), `failed`, `canceled`.',
    }),
    started_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    cost: z.number().int().openapi({ description: 'Credits the node has cost so far.' }),
    error: z.string().nullable().openapi({ description: 'Why the node failed; null unless it did.' }),
  })
  .openapi('RunNodeEvent', {
    description: "The data of a `node` event of a run's event stream (GET /runs/{run_id}/events): a node's state.",
  });

/** The data of a `delta` event of a run's event stream: a chunk of the text a node produces as it comes. */
export const RunDeltaEventSchema = z
  .object({
    node_id: z.string().openapi({ description: 'The node producing the text.' }),
    index: z.number().int().min(0).openapi({
      description: "The chunk's place in the text of the node's execution, from 0 (0 again: the text starts over).",
    }),
    text: z.string().min(1).openapi({ description: 'The chunk: the texts of the chunks in order make the output.' }),
  })
  .openapi('RunDeltaEvent', {
    description:
      "The data of a `delta` event of a run's event stream (GET /runs/{run_id}/events): text a node produces as it " +
      'comes (an `llm` node streaming its answer). Sent without an id, never stored, never sent again.',
  });

export const RunSummarySchema = z
  .object({
    id: z.uuid(),
    agent_id: z.uuid(),
    ...RunSummaryCommon,
    awaiting_human_review: z.boolean().default(false),
  })
  .openapi('RunSummary');

export const AppRunSummarySchema = z
  .object({ id: z.uuid(), app_id: z.uuid(), ...RunSummaryCommon })
  .openapi('AppRunSummary');

export const RunPageSchema = cursorPage(RunSummarySchema, 'CursorPage_RunSummary');
export const AppRunPageSchema = cursorPage(AppRunSummarySchema, 'CursorPage_AppRunSummary');

/** Absent: every run; `true`: only the runs parked on a review (the review inbox); `false`: the others. */
const AwaitingReviewFilter = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === 'true'))
  .openapi({
    type: 'boolean',
    description:
      'true: only runs waiting for a review decision (`awaiting_human_review`); false: only runs that are not.',
  });

const RunListFilters = {
  status: FlowRunStatusSchema.optional(),
  external_id: ExternalId.optional(),
  awaiting_human_review: AwaitingReviewFilter,
};

export const ListRunsQuery = PaginationQuery.extend({
  agent_id: IdParam.optional().openapi({ description: 'Only the runs of this agent.' }),
  ...RunListFilters,
});

export const ListAppRunsQuery = PaginationQuery.extend({
  app_id: IdParam.optional().openapi({ description: 'Only the runs of this app.' }),
  ...RunListFilters,
});

export const CreateRunBody = z
  .object({
    agent_id: z.uuid(),
    inputs: z.array(RunInputSchema).default([]),
    external_id: ExternalId.optional(),
    ...RunWebhookFields,
  })
  .openapi('CreateRun');

export const CreateAppRunBody = z
  .object({
    app_id: z.uuid(),
    inputs: z.array(RunInputSchema).default([]),
    external_id: ExternalId.optional(),
    ...RunWebhookFields,
  })
  .openapi('CreateAppRun');

/** The review body (docs/api.md#reviews). `output` is checked against the proposal by the use case. */
export const ReviewDecisionBody = z
  .object({
    decision: ReviewDecisionSchema.openapi({
      description:
        '`approve` completes the review with `output`. `retry` runs again every node between the review and the ' +
        'nearest nodes upstream whose output can change (provider nodes, `generic_provider`), each charged again, ' +
        'and the review proposes anew; nodes computed from the run inputs alone keep their output. A review fed ' +
        'only by those re-runs the node(s) directly upstream and proposes the same output again.',
    }),
    output: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('ReviewDecisionBody');

export type RunInput = z.infer<typeof RunInputSchema>;
export type RunResult = z.infer<typeof RunResultSchema>;
export type ProposedOutput = z.infer<typeof ProposedOutputSchema>;
export type PendingReview = z.infer<typeof PendingReviewSchema>;
export type Run = z.infer<typeof RunSchema>;
export type AppRun = z.infer<typeof AppRunSchema>;
export type RunSummary = z.infer<typeof RunSummarySchema>;
export type RunNodeEvent = z.infer<typeof RunNodeEventSchema>;
export type RunDeltaEvent = z.infer<typeof RunDeltaEventSchema>;
export type AppRunSummary = z.infer<typeof AppRunSummarySchema>;
