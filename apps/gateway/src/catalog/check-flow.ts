import type { Flow } from '@weft/contracts';
import { validateFlow, type Loc } from '@weft/dag';
import { ValidationError } from '@weft/errors';
import { nodeParamIssues } from '@weft/nodes';

/**
 * Throws 422 listing every problem of a flow about to be published, with
 * `loc` into it: its structure (@weft/dag) and the params its node types
 * refuse (@weft/nodes: a timeout_ms above the type's maximum).
 */
export function assertPublishableFlow(flow: Flow, prefix: Loc): void {
  const issues = [...validateFlow(flow, prefix), ...nodeParamIssues(flow, prefix)];
  if (issues.length > 0) throw new ValidationError(issues);
}
