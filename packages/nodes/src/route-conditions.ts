import { jsonEqual } from '@weft/dag';
import { RE2JS } from 're2js';
import { NodeFailure, type NodeValue } from './types';
import { asText } from './values';

// The conditions of a router's routes. `matches` runs RE2 (the re2js port):
// matching takes time linear in the text whatever the pattern, so a flow
// author's pattern cannot stall the worker that executes the router (an
// instant node, with no timeout to stop it).

/** The longest text a `matches` condition reads: at RE2's pace, under a tenth of a second as measured. */
export const MAX_MATCHED_TEXT = 262_144;

export type RouteCondition =
  { equals: unknown } | { contains: string } | { matches: string } | { path: string; equals: unknown };

/** Why `pattern` is not an RE2 regular expression, or undefined when it is one. */
export function patternError(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The property at a dotted path (`a.b.0`: list positions by number); undefined when there is none. */
function propertyAt(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (current !== null && typeof current === 'object' && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else return undefined;
  }
  return current;
}

/** Whether `when` holds for `input`, the value at the router's input `value`. */
export function conditionHolds(nodeId: string, when: RouteCondition, input: NodeValue): boolean {
  if ('path' in when) {
    const found = propertyAt(input.value, when.path);
    return found !== undefined && jsonEqual(found, when.equals);
  }
  if ('equals' in when) return jsonEqual(input.value, when.equals);
  if ('contains' in when) {
    if (typeof input.value === 'string') return input.value.includes(when.contains);
    return Array.isArray(input.value) && input.value.includes(when.contains);
  }
  const text = asText(input);
  if (text.length > MAX_MATCHED_TEXT) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${nodeId}': the text at input 'value' has ${text.length} characters; ` +
        `a 'matches' route reads at most ${MAX_MATCHED_TEXT}`,
    );
  }
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(when.matches);
  } catch (err) {
    throw new NodeFailure('invalid_input', `Node '${nodeId}': params.routes: ${(err as Error).message}`);
  }
  return pattern.matcher(text).find();
}
