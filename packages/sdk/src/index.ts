// @weft/sdk: the TypeScript client of the Weft API (README.md shows it at work).
export { WeftClient } from './client';
export { DEFAULT_BASE_URL } from './core';
export type { ReviewDecision, UploadOptions, WaitOptions, WeftClientOptions } from './core';
export type { RunOptions } from './run';
export { resolveTarget, type Target } from './target';
export type { Created, CreateBody, RunResource } from './runs';
export { WeftApiError, WeftConnectionError, WeftError, type ValidationIssue } from './errors';
export type { FollowOptions, NodeState, RunEvent } from './events';
export { file, WeftFile, type FileSource } from './upload';
export type { InputValue, RunInputs } from './inputs';
export type { Downloaded } from './download';
export { toArray, type CursorPage } from './pagination';
export { DEFAULT_RETRY, parseRetryAfter, type RetryOptions } from './retry';
export { hasEnded, runKindOf } from './types';
export type * from './types';
export type { paths, components } from './generated/openapi';
