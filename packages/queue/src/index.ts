export * from './connections';
export * from './heartbeat';
