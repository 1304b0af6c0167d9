export * from './zod';
export * from './enums';
export * from './common';
export * from './flow';
export * from './agents';
export * from './apps';
export * from './admin';
