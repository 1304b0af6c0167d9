import { MAX_CREDITS, type Flow, type NodeType } from '@weft/contracts';
import { z } from 'zod';
import { definitionOf, isDefinedNodeType, paramsSchemaOf } from './registry';
import { NodeFailure } from './types';

/**
 * The node's params as its type reads them (defaults applied). A flow is
 * checked when it is published; one stored before a rule existed fails here,
 * before any work, with `invalid_input` saying what is wrong.
 */
export function parseNodeParams(
  type: NodeType | string,
  nodeId: string,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> {
  // timeout_ms is read by timeoutOf, which caps what a flow stored before its bound asks for.
  const { timeout_ms: _, ...own } = params ?? {};
  const result = paramsSchemaOf(type).safeParse(own);
  if (result.success) return result.data as Record<string, unknown>;
  const why = result.error.issues
    .map(
      (issue) =>
        `params${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`,
    )
    .join('; ');
  throw new NodeFailure('invalid_input', `Node '${nodeId}' (${type}) has invalid params: ${why}`);
}

/** The JSON Schema of a type's params (GET /node-types): what a flow author may set, with defaults. */
export function paramsJsonSchema(type: NodeType | string): Record<string, unknown> {
  const schema = z.toJSONSchema(paramsSchemaOf(type), { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return schema;
}

/**
 * Credits a run of `flow` is expected to cost: the sum of its nodes'
 * estimates (each from its params), at most MAX_CREDITS. For a flow that has
 * passed publication's checks.
 */
export function estimateFlowCost(flow: Flow): number {
  let total = 0;
  for (const node of flow.nodes) {
    if (!isDefinedNodeType(node.type)) continue;
    const parsed = paramsSchemaOf(node.type).safeParse(node.params ?? {});
    if (parsed.success) total += definitionOf(node.type).estimateCost(parsed.data);
  }
  return Math.min(total, MAX_CREDITS);
}
