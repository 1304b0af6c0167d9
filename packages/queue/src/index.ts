export * from './connections';
export * from './heartbeat';
export * from './run-jobs';
export * from './asset-jobs';
