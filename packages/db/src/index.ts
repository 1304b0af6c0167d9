export * from './client';
export * from './errors';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
