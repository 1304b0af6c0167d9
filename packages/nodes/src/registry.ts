import { MAX_NODE_TIMEOUT_MS, NODE_TYPES, type NodeType } from '@weft/contracts';
import { isInertNodeType } from '@weft/dag';
import { changeAspectRatio } from './executors/change-aspect-ratio';
import { genericProvider } from './executors/generic-provider';
import { humanReview } from './executors/human-review';
import { listSelector } from './executors/list-selector';
import { promptConcatenate } from './executors/prompt-concatenate';
import { providerRequired } from './executors/provider-required';
import { audioInput, fileInput, imageInput, videoInput } from './executors/asset-inputs';
import { textInput } from './executors/text-input';
import { textSplit } from './executors/text-split';
import type { NodeExecutor, NodeKind } from './types';

// The one registry of node types. Adding a node type is adding its file under
// executors/ and one entry here; every type without an executor is served by
// providerRequired until its provider adapter exists.
const BUILT_IN: NodeExecutor[] = [
  textInput,
  imageInput,
  videoInput,
  audioInput,
  fileInput,
  promptConcatenate,
  textSplit,
  listSelector,
  humanReview,
  changeAspectRatio,
  genericProvider,
];

const REGISTRY = new Map<NodeType, NodeExecutor>();
for (const type of NODE_TYPES) {
  if (!isInertNodeType(type)) REGISTRY.set(type, providerRequired(type));
}
for (const executor of BUILT_IN) REGISTRY.set(executor.type, executor);
for (const executor of REGISTRY.values()) {
  if (executor.maxTimeoutMs > MAX_NODE_TIMEOUT_MS) {
    throw new Error(`Node type '${executor.type}' allows more than MAX_NODE_TIMEOUT_MS (${MAX_NODE_TIMEOUT_MS} ms)`);
  }
}

/** The executor of an executable node type; throws for comment/group, which never execute. */
export function executorFor(type: NodeType | string): NodeExecutor {
  const executor = REGISTRY.get(type as NodeType);
  if (!executor) throw new Error(`No executor for node type '${type}'`);
  return executor;
}

/** Whether the worker that makes a node of this type ready executes it at once (NodeExecutor.instant). */
export function isInstantNode(type: NodeType | string): boolean {
  return executorFor(type).instant === true;
}

/** Which queue a node type runs on. */
export function nodeKind(type: NodeType | string): NodeKind {
  return executorFor(type).kind;
}

/**
 * The node's timeout: `params.timeout_ms` when it is a positive integer, at
 * most the type's maximum, else the type's default. Publication refuses a
 * larger one; a flow stored before that rule gets the maximum, never a timer
 * that overflows and fires at once.
 */
export function timeoutOf(type: NodeType | string, params: Record<string, unknown> | undefined): number {
  const executor = executorFor(type);
  const given = params?.timeout_ms;
  if (typeof given === 'number' && Number.isInteger(given) && given > 0) return Math.min(given, executor.maxTimeoutMs);
  return executor.defaultTimeoutMs;
}

/** The most `params.timeout_ms` may ask of a node of this type. */
export function maxTimeoutOf(type: NodeType | string): number {
  return executorFor(type).maxTimeoutMs;
}
