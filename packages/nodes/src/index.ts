// @weft/nodes: the node types. Each is defined once (definition.ts, one file
// under node-types/): its ports, params, output, lane, timeouts, cost
// estimate and `execute`, which gets resolved inputs, parsed params and an
// AbortSignal and returns a typed result; it knows nothing of queues or the
// database (the engine supplies storage through NodeAssets).
export * from './types';
export * from './definition';
export { asText, assetIds, many, single } from './values';
export {
  definitionOf,
  inputNodeTypeOf,
  isDefinedNodeType,
  isInstantNode,
  isRequiredInput,
  laneOf,
  maxTimeoutOf,
  nodeDefinitions,
  paramsSchemaOf,
  rerunOutputOf,
  timeoutOf,
} from './registry';
export { flowNodeIssues, NODE_ISSUE } from './flow-check';
export { estimateFlowCost, parseNodeParams, paramsJsonSchema } from './node-params';
export { MEDIA_MAX_TIMEOUT_MS, PROVIDER_MAX_TIMEOUT_MS, QUICK_MAX_TIMEOUT_MS } from './timeouts';
export { hostAllowed, parseAllowList, refusedAddress, type AllowList } from './outbound/address-policy';
export { checkedLookup, guardedRequest, RefusedDestinationError } from './outbound/guarded-request';
export { centredCrop } from './node-types/change-aspect-ratio';
export { mapToPalette, paletteOf, type Palette } from './palette-map';
export { parseBrand, brandOf, normalHex, type Brand, type BrandIssue } from './brand';
export { guardedFetch, refusalOf } from './outbound/guarded-fetch';
export { inputArgs, openSource, runOnSources, type MediaSource } from './media-sources';
