import { NodeStatusSchema, NodeTypeSchema } from './enums';
import { z } from './zod';

// The flow a run executes, as nodes and edges to draw (docs/api.md#the-graph-of-a-run).

export const RunGraphNodeSchema = z
  .object({
    id: z.string().openapi({ description: 'The node id: the `node_id` of the run events and reviews.' }),
    type: NodeTypeSchema,
    description: z.string().nullable(),
    status: NodeStatusSchema.openapi({
      description: 'Its state now: `pending` until the run reaches it (the statuses of the run events).',
    }),
    started_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    cost: z.number().int().nullable().openapi({ description: 'Credits it cost, once settled.' }),
    error: z.string().nullable().openapi({ description: 'Why it failed, as the run shows it.' }),
  })
  .openapi('RunGraphNode');

export const RunGraphEdgeSchema = z
  .object({
    from: z.string().openapi({ description: 'The upstream node, whose output is read.' }),
    to: z.string().openapi({ description: 'The node that reads it.' }),
    port: z.string().openapi({ description: 'The input port of `to` the output feeds.' }),
  })
  .openapi('RunGraphEdge');

export const RunGraphSchema = z
  .object({
    nodes: z.array(RunGraphNodeSchema).openapi({ description: "Every node of the flow, in the flow's order." }),
    edges: z.array(RunGraphEdgeSchema).openapi({
      description:
        "One per upstream node each input port reads, in the flow's order of the reading nodes, then of their " +
        'ports and list entries.',
    }),
  })
  .openapi('RunGraph', {
    description: 'The flow of the agent version a run executes, with the state of each node when read.',
  });

export type RunGraph = z.infer<typeof RunGraphSchema>;
