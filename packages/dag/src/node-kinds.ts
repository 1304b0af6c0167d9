import { INPUT_NODE_TYPES, type NodeType } from '@weft/contracts';

const INPUT_TYPES: ReadonlySet<string> = new Set(INPUT_NODE_TYPES);
const INERT_TYPES: ReadonlySet<string> = new Set(['comment', 'group']);

/** `*_input` nodes: their value is supplied by the caller when a run is created. */
export function isInputNodeType(type: NodeType | string): boolean {
  return INPUT_TYPES.has(type);
}

/** `comment` and `group` carry no behaviour, are never executed and take no part in links. */
export function isInertNodeType(type: NodeType | string): boolean {
  return INERT_TYPES.has(type);
}

/**
 * What executing a node of a type again, on the same inputs and params, gives:
 * - `same`: the node computes its output from them alone (run inputs, the
 *   built-in text, list and media transforms);
 * - `new`: a provider answers, and may answer differently (`generic_provider`
 *   and every provider-backed type);
 * - `reviewed`: a person chose it (`human_review`); asking again is not re-running.
 * Each node type's definition (@weft/nodes) says which.
 */
export type RerunOutput = 'same' | 'new' | 'reviewed';
