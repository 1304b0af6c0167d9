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
 *   built-in text, list and media transforms of extensions.md 5.2);
 * - `new`: a provider answers, and may answer differently (`generic_provider`
 *   and every provider-backed type, extensions.md 5.3);
 * - `reviewed`: a person chose it (`human_review`); asking again is not re-running.
 * A type missing from the lists below counts as `new`: at worst a retry re-runs
 * a node whose answer does not change, never skips one whose answer would.
 */
export type RerunOutput = 'same' | 'new' | 'reviewed';

const SAME_OUTPUT_TYPES: ReadonlySet<string> = new Set<NodeType>([
  ...INPUT_NODE_TYPES,
  'prompt_concatenate',
  'text_split',
  'list_selector',
  'router',
  'rename_asset',
  'change_aspect_ratio',
  'add_logo',
  'composer',
  'screen_mockup',
  'match_brand_colors',
  'vectorize',
  'extract_video_frame',
  'video_concat',
  'trim_speed',
  'video_edit',
  'extract_audio',
  'remove_audio',
  'merge_audio_video',
  'video_add_sound',
  'video_subtitle',
]);

export function rerunOutputOf(type: NodeType | string): RerunOutput {
  if (type === 'human_review') return 'reviewed';
  return SAME_OUTPUT_TYPES.has(type) ? 'same' : 'new';
}
