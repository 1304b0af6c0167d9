// @weft/nodes: what each node type does. Executors get resolved inputs,
// params and an AbortSignal and return typed results; they know nothing of
// queues or the database (the engine supplies storage through NodeAssets).
export * from './types';
export { executorFor, isInstantNode, maxTimeoutOf, nodeKind, timeoutOf } from './registry';
export { nodeParamIssues } from './param-bounds';
export { MEDIA_MAX_TIMEOUT_MS, PROVIDER_MAX_TIMEOUT_MS, QUICK_MAX_TIMEOUT_MS } from './timeouts';
export { providerSetting } from './executors/provider-required';
export { parseAllowList, refusedAddress, type AllowList } from './outbound/address-policy';
export { guardedRequest, RefusedDestinationError } from './outbound/guarded-request';
export { centredCrop } from './executors/change-aspect-ratio';
