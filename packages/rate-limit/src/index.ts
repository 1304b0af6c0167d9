export * from './request-limiter';
