import { DataTypeSchema, NodeTypeSchema } from './enums';
import { z } from './zod';

// The flow definition format of extensions.md 4. Structural rules that need the
// whole graph (unique ids, links, cycles) live in @weft/dag.

export const FlowNodeSchema = z
  .object({
    id: z.string().min(1).max(128),
    type: NodeTypeSchema,
    description: z.string().optional(),
    required: z.boolean().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
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
