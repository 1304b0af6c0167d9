import { defineConfig } from 'prisma/config';

// Prisma 7 reads connection settings here rather than from schema.prisma.
// Only `prisma generate` is run through the CLI (migrations use the WebAssembly
// schema engine in packages/db), so no URL is needed.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
