export * from './client';
export * from './errors';
export { derivedUuid, uuidv7 } from './ids';
export * from './pagination';
export { isReadableBy, READABLE_BY_OTHERS, readableBy, readableBySql } from './readable';
export * from './sql-page';
export { applyMigrations, type ApplyOptions, type ApplyResult } from './migrations/apply';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
