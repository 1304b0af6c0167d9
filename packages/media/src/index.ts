export * from './media-types';
export * from './sniff-text';
export * from './detect-media';
export * from './image';
export * from './video';
export * from './vectorize';
export { tracePool, TracerBusyError } from './trace-pool';
export * from './document';
export * from './redact';
