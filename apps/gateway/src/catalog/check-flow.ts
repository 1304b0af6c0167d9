import type { Flow } from '@weft/contracts';
import { isInertNodeType, validateFlow, type Loc } from '@weft/dag';
import { ValidationError, type ValidationIssue } from '@weft/errors';
import { flowNodeIssues, isDefinedNodeType, paramsSchemaOf } from '@weft/nodes';
import { toValidationIssues } from '../http/validation';

/** Each node's params against its type's schema, worded as the rest of the body's issues are. */
function paramIssues(flow: Flow, prefix: Loc): ValidationIssue[] {
  return flow.nodes.flatMap((node, i) => {
    if (!isDefinedNodeType(node.type) || isInertNodeType(node.type)) return [];
    const params = node.params ?? {};
    const result = paramsSchemaOf(node.type).safeParse(params);
    if (result.success) return [];
    const at: Loc = [...prefix, 'nodes', i, 'params'];
    return toValidationIssues('body', result.error, params).map((issue) => ({
      ...issue,
      loc: [...at, ...issue.loc.slice(1)],
    }));
  });
}

/**
 * Throws 422 listing every problem of a flow about to be published, with
 * `loc` into it: its structure (@weft/dag), and each node against its type's
 * definition (@weft/nodes): ports, the kinds that feed them, params.
 */
export function assertPublishableFlow(flow: Flow, prefix: Loc): void {
  const issues = [...validateFlow(flow, prefix), ...flowNodeIssues(flow, prefix), ...paramIssues(flow, prefix)];
  if (issues.length > 0) throw new ValidationError(issues);
}
