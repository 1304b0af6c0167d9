import { Credits, cursorPage, OwnedFlag, PaginationQuery, repeatable } from './common';
import { DataTypeSchema, FlowVisibilitySchema, NodeTypeSchema } from './enums';
import { FlowSchema } from './flow';
import { z } from './zod';

export const AgentInputSchema = z
  .object({
    id: z.string(),
    type: NodeTypeSchema,
    description: z.string(),
    required: z.boolean().default(true),
  })
  .openapi('AgentInput');

export const AgentOutputSchema = z
  .object({
    id: z.string(),
    type: DataTypeSchema,
    description: z.string(),
  })
  .openapi('AgentOutput');

export const AgentSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()).optional(),
    inputs: z.array(AgentInputSchema).optional(),
    outputs: z.array(AgentOutputSchema).optional(),
    estimated_cost: z.number().int(),
    has_human_review: z.boolean().default(false),
    // Extensions (additive): who may see it and which version runs.
    visibility: FlowVisibilitySchema.optional(),
    version: z.number().int().optional().openapi({ description: 'The active version number.' }),
  })
  .openapi('Agent');

export const AgentSummarySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()).optional(),
    estimated_cost: z.number().int(),
    visibility: FlowVisibilitySchema,
    inputs: z.array(AgentInputSchema).optional(),
    has_human_review: z.boolean().default(false),
  })
  .openapi('AgentSummary');

export const AgentPageSchema = cursorPage(AgentSummarySchema, 'CursorPage_AgentSummary');

export const ListAgentsQuery = PaginationQuery.extend({
  tags: repeatable(z.string()).openapi({
    description: 'Repeatable; an agent matches when it carries every given tag (AND, like the asset filters).',
  }),
  visibility: repeatable(FlowVisibilitySchema).openapi({
    description:
      "Repeatable. private / shared: the caller organization's own agents of that visibility; public: every " +
      "organization's public agents, the caller's own included. Omitted: every agent of the caller organization, " +
      'whatever its visibility.',
  }),
  search: z.string().max(200).optional().openapi({ description: 'Case-insensitive substring of the name.' }),
  owned: OwnedFlag,
});

export const CreateAgentBody = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(10_000),
    tags: z.array(z.string().min(1).max(64)).max(50).optional(),
    visibility: FlowVisibilitySchema.default('private'),
    estimated_cost: Credits.optional().openapi({
      description:
        "Credits a run is expected to cost; default: the sum of the flow's node estimates (0 without a flow)",
    }),
    flow: FlowSchema.optional(),
  })
  .openapi('CreateAgent');

export const CreateAgentVersionBody = z.object({ flow: FlowSchema }).openapi('CreateAgentVersion');

export const AgentVersionSchema = z
  .object({ version: z.number().int(), created_at: z.iso.datetime() })
  .openapi('AgentVersion');

export type AgentInput = z.infer<typeof AgentInputSchema>;
export type AgentOutput = z.infer<typeof AgentOutputSchema>;
export type Agent = z.infer<typeof AgentSchema>;
export type AgentSummary = z.infer<typeof AgentSummarySchema>;
