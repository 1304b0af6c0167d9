import { Credits } from './common';
import { DataTypeSchema, NodeTypeSchema } from './enums';
import { z } from './zod';

// The flow definition format (docs/api.md#flows). Structural rules that need the
// whole graph (unique ids, links, cycles) live in @weft/dag.

/**
 * The longest `params.timeout_ms` of any node type (1 hour: provider calls).
 * Each type has its own maximum, at most this (`maxTimeoutMs` of its executor
 * in @weft/nodes), checked when a flow is published. Far below what a timer
 * can hold (2^31-1 ms), past which it would fire at once.
 */
export const MAX_NODE_TIMEOUT_MS = 3_600_000;

const TIMEOUT_RANGE = `timeout_ms is a whole number of milliseconds from 1 to ${MAX_NODE_TIMEOUT_MS}, or null for the default`;

/** The params every node type reads alike, bounded; the others are the type's own. Null means the default. */
export const NodeParamsSchema = z
  .object({
    timeout_ms: z
      .number({ error: TIMEOUT_RANGE })
      .int({ error: TIMEOUT_RANGE })
      .min(1, { error: TIMEOUT_RANGE })
      .max(MAX_NODE_TIMEOUT_MS, { error: TIMEOUT_RANGE })
      .nullable()
      .optional()
      .openapi({
        description:
          "How long the node may take, in ms, instead of its type's default; at most the type's maximum " +
          '(1 hour for provider calls, 10 minutes for media processing, 1 minute for the others).',
      }),
    cost: Credits.nullable()
      .optional()
      .openapi({ description: 'generic_provider: credits charged for each successful call (default 0).' }),
  })
  .catchall(z.unknown())
  .openapi('NodeParams');

export const FlowNodeSchema = z
  .object({
    id: z.string().min(1).max(128),
    type: NodeTypeSchema,
    description: z.string().optional(),
    required: z.boolean().optional(),
    params: NodeParamsSchema.optional(),
    inputs: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
  })
  .openapi('FlowNode');

export const FlowOutputSchema = z
  .object({
    id: z.string().min(1),
    type: DataTypeSchema,
    description: z.string(),
  })
  .openapi('FlowOutput');

export const FlowSchema = z
  .object({
    nodes: z.array(FlowNodeSchema).min(1),
    outputs: z.array(FlowOutputSchema).default([]),
  })
  .openapi('Flow');

export type FlowNode = z.infer<typeof FlowNodeSchema>;
export type FlowOutput = z.infer<typeof FlowOutputSchema>;
export type Flow = z.infer<typeof FlowSchema>;
