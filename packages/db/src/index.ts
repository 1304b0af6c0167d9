export * from './client';
export * from './errors';
export * from './pagination';
export * from './sql-page';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
