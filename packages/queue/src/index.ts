export * from './connections';
export * from './heartbeat';
export * from './run-jobs';
export * from './asset-jobs';
export * from './asset-job-producer';
export * from './worker-shutdown';
export * from './eviction-policy';
export * from './observed-queues';
