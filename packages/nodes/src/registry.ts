import { MAX_NODE_TIMEOUT_MS, NODE_TYPES, NodeParamsSchema, type AppInputType, type NodeType } from '@weft/contracts';
import { isInertNodeType, type RerunOutput } from '@weft/dag';
import type { z } from 'zod';
import type { Lane, NodeDefinition } from './definition';
import { addLogo } from './node-types/add-logo';
import { audioInput, fileInput, imageInput, videoInput } from './node-types/asset-inputs';
import { mergeAudioVideo, videoAddSound } from './node-types/audio-under-video';
import { brandSystemInput } from './node-types/brand-system-input';
import { changeAspectRatio } from './node-types/change-aspect-ratio';
import { composer } from './node-types/composer';
import { extractAudio } from './node-types/extract-audio';
import { extractVideoFrame } from './node-types/extract-video-frame';
import { genericProvider } from './node-types/generic-provider';
import { humanReview } from './node-types/human-review';
import { listSelector } from './node-types/list-selector';
import { matchBrandColors } from './node-types/match-brand-colors';
import { promptConcatenate } from './node-types/prompt-concatenate';
import { providerTypes } from './node-types/provider-types';
import { removeAudio } from './node-types/remove-audio';
import { renameAsset } from './node-types/rename-asset';
import { router } from './node-types/router';
import { screenMockup } from './node-types/screen-mockup';
import { textInput } from './node-types/text-input';
import { textSplit } from './node-types/text-split';
import { textToSpeech } from './node-types/text-to-speech';
import { trimSpeed } from './node-types/trim-speed';
import { upscale } from './node-types/upscale';
import { upscaleVideo } from './node-types/upscale-video';
import { vectorize } from './node-types/vectorize';
import { videoConcat } from './node-types/video-concat';
import { videoEdit } from './node-types/video-edit';
import { videoSubtitle } from './node-types/video-subtitle';

// The one registry of node types, built from their definitions (definition.ts):
// adding a node type is adding its file under node-types/ and its entry here.
const DEFINITIONS: NodeDefinition[] = [
  textInput,
  imageInput,
  videoInput,
  audioInput,
  fileInput,
  brandSystemInput,
  promptConcatenate,
  textSplit,
  listSelector,
  router,
  humanReview,
  renameAsset,
  changeAspectRatio,
  addLogo,
  composer,
  screenMockup,
  matchBrandColors,
  vectorize,
  upscale,
  extractVideoFrame,
  videoConcat,
  trimSpeed,
  videoEdit,
  upscaleVideo,
  extractAudio,
  removeAudio,
  mergeAudioVideo,
  videoAddSound,
  videoSubtitle,
  textToSpeech,
  genericProvider,
  ...providerTypes,
] as NodeDefinition[];

interface Registered {
  definition: NodeDefinition;
  /** The type's params with `timeout_ms`, which every type takes; unknown params are refused. */
  params: z.ZodObject;
}

const REGISTRY = new Map<NodeType, Registered>();
for (const definition of DEFINITIONS) {
  if (REGISTRY.has(definition.type)) throw new Error(`Node type '${definition.type}' is defined twice`);
  if (definition.maxTimeoutMs > MAX_NODE_TIMEOUT_MS) {
    throw new Error(`Node type '${definition.type}' allows more than MAX_NODE_TIMEOUT_MS (${MAX_NODE_TIMEOUT_MS} ms)`);
  }
  const { output } = definition;
  if ('sameAs' in output && !Object.hasOwn(definition.inputs, output.sameAs)) {
    throw new Error(`Node type '${definition.type}' passes on input '${output.sameAs}', which it does not have`);
  }
  const params = definition.params.extend({ timeout_ms: NodeParamsSchema.shape.timeout_ms }).strict();
  REGISTRY.set(definition.type, { definition, params });
}
for (const type of NODE_TYPES) {
  if (!isInertNodeType(type) && !REGISTRY.has(type)) throw new Error(`Node type '${type}' has no definition`);
}

function registered(type: NodeType | string): Registered {
  const entry = REGISTRY.get(type as NodeType);
  if (!entry) throw new Error(`No definition for node type '${type}'`);
  return entry;
}

/** Every node type that executes, in the order of NODE_TYPES (@weft/contracts). */
export function nodeDefinitions(): NodeDefinition[] {
  return NODE_TYPES.filter((t) => REGISTRY.has(t)).map((t) => REGISTRY.get(t)!.definition);
}

/** The definition of an executable node type; throws for comment/group, which never execute. */
export function definitionOf(type: NodeType | string): NodeDefinition {
  return registered(type).definition;
}

/** Whether `type` names a node type that executes (not comment/group, not unknown). */
export function isDefinedNodeType(type: string): boolean {
  return REGISTRY.has(type as NodeType);
}

/** The full params schema of a type: its own params plus `timeout_ms`, nothing else. */
export function paramsSchemaOf(type: NodeType | string): z.ZodObject {
  return registered(type).params;
}

/** The input node type an app input of `type` exposes. */
export function inputNodeTypeOf(type: AppInputType): NodeType {
  const found = DEFINITIONS.find((d) => d.runInput === type);
  if (!found) throw new Error(`No input node type takes a run input of type '${type}'`);
  return found.type;
}

/** Whether the worker that makes a node of this type ready executes it at once (NodeDefinition.instant). */
export function isInstantNode(type: NodeType | string): boolean {
  return definitionOf(type).instant === true;
}

/** Whether a node of this type cannot run without a value at input `port` (PortSpec.required). */
export function isRequiredInput(type: NodeType | string, port: string): boolean {
  const { inputs, otherInputs } = definitionOf(type);
  return Object.hasOwn(inputs, port) ? inputs[port]!.required : (otherInputs?.required ?? false);
}

/** Which queue a node type runs on. */
export function laneOf(type: NodeType | string): Lane {
  return definitionOf(type).lane;
}

/** What executing a node of this type again gives: decides what a review retry re-runs. */
export function rerunOutputOf(type: NodeType | string): RerunOutput {
  return definitionOf(type).rerun;
}

/**
 * The node's timeout: `params.timeout_ms` when it is a positive integer, at
 * most the type's maximum, else the type's default. Publication refuses a
 * larger one; a flow stored before that rule gets the maximum, never a timer
 * that overflows and fires at once.
 */
export function timeoutOf(type: NodeType | string, params: Record<string, unknown> | undefined): number {
  const definition = definitionOf(type);
  const given = params?.timeout_ms;
  if (typeof given === 'number' && Number.isInteger(given) && given > 0)
    return Math.min(given, definition.maxTimeoutMs);
  return definition.defaultTimeoutMs;
}

/** The most `params.timeout_ms` may ask of a node of this type. */
export function maxTimeoutOf(type: NodeType | string): number {
  return definitionOf(type).maxTimeoutMs;
}
