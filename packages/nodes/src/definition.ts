import type { AppInputType, DataType, NodeType } from '@weft/contracts';
import type { RerunOutput } from '@weft/dag';
import type { z } from 'zod';
import type { NodeContext, NodeResult } from './types';

/**
 * `light` nodes wait on I/O (provider calls, bookkeeping) and run many at a
 * time; `heavy` nodes process media and run on their own queue with a small
 * concurrency, so one kind never starves the other.
 */
export type Lane = 'light' | 'heavy';

/** Every kind a value passed between nodes can have. */
export const ANY_KIND: readonly DataType[] = ['text', 'images', 'videos', 'files', 'audio', 'data'];

/** One named input of a node type: which upstream outputs may feed it. */
export interface PortSpec {
  /** The output kinds (DataType) of upstream nodes this port takes. */
  accepts: readonly DataType[];
  /** A run cannot reach the node without it: a flow that leaves it unlinked is refused. */
  required: boolean;
  /** Whether the port may name several upstream nodes (`["a", "b"]`); a single-value port takes one. */
  many: boolean;
  description: string;
}

/**
 * What a node type produces: one of `kinds`, or (`sameAs`) whatever the
 * upstream node at that port produces, plus `also` (list_selector may turn a
 * list of text into text). Flow validation follows `sameAs` through the flow
 * to check a downstream port.
 */
export type OutputSpec = { kinds: readonly DataType[] } | { sameAs: string; also?: readonly DataType[] };

/** How a deployment serves a node type: on the worker, or through a provider adapter. */
export type Serving = 'built_in' | 'provider' | 'local_or_provider';

/**
 * A node type, defined once: the registry, flow validation, `GET
 * /node-types`, the queues and the engine all read it from here.
 * `params` is a zod object of the type's own params; `timeout_ms`, which
 * every type takes, is added by the registry.
 */
export interface NodeDefinition<P extends z.ZodObject = z.ZodObject> {
  type: NodeType;
  /** One sentence for flow authors (GET /node-types, docs/nodes.md). */
  description: string;
  serving: Serving;
  /** For `*_input` types: the kind of value a run gives it (an app input of this AppInputType exposes it). */
  runInput?: AppInputType;
  inputs: Readonly<Record<string, PortSpec>>;
  /** Ports under any other name, when the type takes them (generic_provider passes every port on). */
  otherInputs?: PortSpec;
  params: P;
  output: OutputSpec;
  /**
   * The named outputs of a node of this type with these params (a router's
   * route ports): a flow may link `<node id>.<port>` to one of them, and the
   * node's result says which carry its value (NodeResult.ports); the nodes
   * that only the others lead to end skipped. Absent: the node has one
   * output, linked by its id.
   */
  outputPorts?(params: z.output<P>): string[];
  /**
   * What executes it when no provider adapter is routed to it: `local` for
   * the worker's own route of a local_or_provider type. Provider types have
   * none until their adapters route them (NODE_ROUTES).
   */
  localRoute?: { model: string };
  lane: Lane;
  /**
   * Pure and immediate: computes its output from its inputs and params alone,
   * with no I/O and nothing to abort, the same output every time. The worker
   * that makes such a node ready executes it at once instead of sending it
   * through the queue, and commits it with the node that made it ready
   * (ADR 0013); it may execute it again when that commit misses. Never set it
   * on a node that calls out, reads storage, costs credits or takes noticeable time.
   */
  instant?: boolean;
  /** What executing it again on the same inputs gives (@weft/dag RerunOutput): decides what a review retry re-runs. */
  rerun: RerunOutput;
  /** Used when the node's `params.timeout_ms` is absent. */
  defaultTimeoutMs: number;
  /**
   * The most `params.timeout_ms` may ask for: a flow asking more is refused
   * when it is published. At most MAX_NODE_TIMEOUT_MS (@weft/contracts).
   */
  maxTimeoutMs: number;
  /** Credits one execution is expected to cost, from its params (the agent's estimate sums these). */
  estimateCost(params: z.output<P>): number;
  execute(ctx: NodeContext<z.output<P>>): Promise<NodeResult>;
}

/** Declares a node type; the identity function that lets TypeScript type `execute`'s params from the schema. */
export function defineNode<P extends z.ZodObject>(definition: NodeDefinition<P>): NodeDefinition<P> {
  return definition;
}

/**
 * Every kind a node of this type can produce, whatever feeds it: its `kinds`,
 * or (`sameAs`) every kind the port it passes on takes, plus `also`; in
 * ANY_KIND's order. `sameAs` then says which of them a given node produces.
 */
export function outputKinds(definition: Pick<NodeDefinition, 'inputs' | 'output'>): readonly DataType[] {
  const { output } = definition;
  if ('kinds' in output) return output.kinds;
  // The registry refuses a `sameAs` naming no input of the type.
  const passed = Object.hasOwn(definition.inputs, output.sameAs) ? definition.inputs[output.sameAs]!.accepts : [];
  const kinds = new Set([...passed, ...(output.also ?? [])]);
  return ANY_KIND.filter((kind) => kinds.has(kind));
}
