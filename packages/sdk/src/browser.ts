// @weft/sdk/browser: the client of a web page (README.md, "In a browser").
// Everything this file imports must run without Node.js: browser-bundle.test.ts
// bundles it for a browser, which fails on any node:* import.
export { WeftBrowserClient, type BrowserUploadOptions, type DownloadedBlob } from './browser-client';
export { DEFAULT_BASE_URL } from './core';
export type { ReviewDecision, UploadOptions, WaitOptions, WeftClientOptions } from './core';
export { resolveTarget, type Target } from './target';
export type { Created, CreateBody, RunResource } from './runs';
export { WeftApiError, WeftConnectionError, WeftError, type ValidationIssue } from './errors';
export type { FollowOptions, NodeState, RunEvent } from './events';
export { toArray, type CursorPage } from './pagination';
export { DEFAULT_RETRY, parseRetryAfter, type RetryOptions } from './retry';
export { hasEnded, runKindOf } from './types';
export type * from './types';
export type { paths, components } from './generated/openapi';
