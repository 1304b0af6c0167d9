import { NODE_TYPES, type Flow } from '@weft/contracts';
import { isInertNodeType, type Loc } from '@weft/dag';
import type { ValidationIssue } from '@weft/errors';
import { executorFor } from './registry';

const KNOWN_TYPES: ReadonlySet<string> = new Set(NODE_TYPES);

/**
 * The params of a flow's nodes that their node type refuses, each with a `loc`
 * into the flow prefixed by `prefix` (e.g. `['body', 'flow']`): a
 * `timeout_ms` above the type's maximum. The contract's schema has already
 * bounded what every type shares (a positive integer timeout within the
 * longest any type allows, a cost an integer column holds). For publication:
 * a flow stored before a bound gets the type's maximum when it runs (timeoutOf).
 */
export function nodeParamIssues(flow: Flow, prefix: Loc = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  flow.nodes.forEach((node, i) => {
    // Unknown types are validateFlow's to report; comment and group never execute.
    if (!KNOWN_TYPES.has(node.type) || isInertNodeType(node.type)) return;
    const { maxTimeoutMs } = executorFor(node.type);
    const given = node.params?.timeout_ms;
    if (typeof given === 'number' && given > maxTimeoutMs) {
      issues.push({
        loc: [...prefix, 'nodes', i, 'params', 'timeout_ms'],
        msg: `A ${node.type} node may be given at most ${maxTimeoutMs} ms`,
        type: 'less_than_equal',
        input: given,
        ctx: { max: maxTimeoutMs },
      });
    }
  });
  return issues;
}
