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
