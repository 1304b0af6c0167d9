import type { AppInput, AgentOutput, Flow } from '@weft/contracts';
import { isInertNodeType, isInputNodeType } from '@weft/dag';
import type { ValidationIssue } from '@weft/errors';
import { definitionOf, inputNodeTypeOf, isDefinedNodeType } from '@weft/nodes';

/**
 * Checks an app definition against the active flow of its agent
 * (docs/api.md#apps), naming each offending entry:
 * - every input id is an input node of the flow, of the matching kind, and
 *   appears once; min_selections ≤ max_selections;
 * - every required input node of the flow is exposed (otherwise no run of the
 *   app could ever start);
 * - every output id is an executable node of the flow and appears once.
 */
export function checkAppAgainstFlow(
  flow: Flow,
  inputs: AppInput[],
  outputs: AgentOutput[],
  prefix: (string | number)[] = ['body'],
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const nodes = new Map(flow.nodes.map((n) => [n.id, n]));

  const seenInputs = new Set<string>();
  inputs.forEach((input, i) => {
    const loc = [...prefix, 'inputs', i];
    const node = nodes.get(input.id);
    if (!node || !isInputNodeType(node.type)) {
      issues.push({
        loc: [...loc, 'id'],
        msg: `'${input.id}' is not an input node of the agent's active flow`,
        type: 'unknown_input',
        input: input.id,
      });
    } else if (inputNodeTypeOf(input.type) !== node.type) {
      issues.push({
        loc: [...loc, 'type'],
        msg: `Input node '${input.id}' is a ${node.type}; its app input type must be '${appTypeOf(node.type)}'`,
        type: 'input_type_mismatch',
        input: input.type,
        ctx: { expected: appTypeOf(node.type) },
      });
    }
    if (seenInputs.has(input.id)) {
      issues.push({
        loc: [...loc, 'id'],
        msg: `Duplicate input id '${input.id}'`,
        type: 'duplicate_input_id',
        input: input.id,
      });
    }
    seenInputs.add(input.id);
    const { min_selections: min, max_selections: max } = input;
    if (min != null && max != null && min > max) {
      issues.push({
        loc: [...loc, 'min_selections'],
        msg: 'min_selections must not exceed max_selections',
        type: 'value_error',
        input: min,
        ctx: { max_selections: max },
      });
    }
  });

  for (const node of flow.nodes) {
    if (isInputNodeType(node.type) && (node.required ?? true) && !seenInputs.has(node.id)) {
      issues.push({
        loc: [...prefix, 'inputs'],
        msg: `Required input '${node.id}' of the agent is not exposed by the app`,
        type: 'missing_input',
        ctx: { id: node.id },
      });
    }
  }

  const seenOutputs = new Set<string>();
  outputs.forEach((output, j) => {
    const loc = [...prefix, 'outputs', j, 'id'];
    const node = nodes.get(output.id);
    if (!node || isInertNodeType(node.type)) {
      issues.push({
        loc,
        msg: `'${output.id}' is not a node of the agent's active flow`,
        type: 'unknown_node',
        input: output.id,
      });
    }
    if (seenOutputs.has(output.id)) {
      issues.push({ loc, msg: `Duplicate output id '${output.id}'`, type: 'duplicate_output_id', input: output.id });
    }
    seenOutputs.add(output.id);
  });

  return issues;
}

function appTypeOf(nodeType: string): string {
  return (isDefinedNodeType(nodeType) ? definitionOf(nodeType).runInput : undefined) ?? nodeType;
}
