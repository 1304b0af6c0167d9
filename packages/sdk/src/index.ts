// @weft/sdk: the TypeScript client of the Weft API (README.md shows it at work).
export { WeftClient, DEFAULT_BASE_URL } from './client';
export type { ReviewDecision, UploadOptions, WaitOptions, WeftClientOptions } from './client';
export type { RunOptions, Target } from './run';
export { resolveTarget } from './run';
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
