import { DataTypeSchema, NodeTypeSchema } from './enums';
import { z } from './zod';

// GET /node-types: each node type as its definition describes it, so that a
// flow author (or a console) can build valid flows without reading our code.

export const NodePortSchema = z
  .object({
    name: z.string(),
    accepts: z.array(DataTypeSchema).openapi({ description: 'Output kinds of the upstream nodes it takes' }),
    required: z.boolean(),
    many: z.boolean().openapi({ description: 'Whether it takes a list of upstream nodes (`["a", "b"]`)' }),
    description: z.string(),
  })
  .openapi('NodePort');

export const NodeOutputSchema = z
  .object({
    kinds: z.array(DataTypeSchema).openapi({
      description: 'Every kind its output can have (empty only for comment and group, which produce nothing)',
    }),
    same_as: z
      .string()
      .nullable()
      .openapi({
        description:
          'When set, which of `kinds` a node produces follows what feeds this input port: its kind ' +
          '(list_selector: an element of it, text when it is a list of text)',
      }),
  })
  .openapi('NodeOutput');

export const NodeRouteSchema = z
  .object({
    provider: z.string().openapi({ description: '`built_in`, `local`, or a provider adapter' }),
    model: z.string().nullable(),
  })
  .openapi('NodeRoute');

export const NodeTypeInfoSchema = z
  .object({
    type: NodeTypeSchema,
    description: z.string(),
    serving: z.enum(['built_in', 'provider', 'local_or_provider']).openapi({
      description:
        'built_in: executed by the worker in every deployment; provider: by a provider adapter; ' +
        'local_or_provider: by the worker unless routed to a provider',
    }),
    inputs: z.array(NodePortSchema),
    other_inputs: NodePortSchema.omit({ name: true })
      .nullable()
      .openapi({ description: 'What ports of any other name take, when the type accepts them' }),
    params_schema: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'JSON Schema of `params` (defaults included); unknown params are refused' }),
    output: NodeOutputSchema,
    lane: z.enum(['light', 'heavy']).openapi({ description: 'light: waits on I/O; heavy: processes media' }),
    default_timeout_ms: z.number().int(),
    max_timeout_ms: z.number().int(),
    estimated_cost: z.number().int().openapi({ description: 'Credits one execution costs with default params' }),
    route: NodeRouteSchema.nullable().openapi({
      description: 'What executes it in this deployment for the caller organization; null when nothing does yet',
    }),
    route_missing: z.string().nullable().openapi({
      description:
        'When `route` is null for a type a provider would serve: the setting or credential that would give it one',
    }),
  })
  .openapi('NodeTypeInfo');

export const NodeTypeListSchema = z.object({ data: z.array(NodeTypeInfoSchema) }).openapi('NodeTypeList');

export const NodeTypePath = z.object({ type: z.string().openapi({ description: 'A NodeType, e.g. add_logo' }) });

export type NodeTypeInfo = z.infer<typeof NodeTypeInfoSchema>;
