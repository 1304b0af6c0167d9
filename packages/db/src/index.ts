export * from './client';
export * from './errors';
export * from './pagination';
export * from './sql-page';
export { applyMigrations, type ApplyOptions, type ApplyResult } from './migrations/apply';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
