#!/usr/bin/env node
// Runs `prisma generate` offline. Prisma's CLI insists on locating a schema-engine
// binary even though generate never calls it, and no native engine can be
// downloaded here, so we point it at a harmless executable.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ||= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
env.CHECKPOINT_DISABLE = '1';
const cli = path.join(root, 'node_modules', 'prisma', 'build', 'index.js');
const result = spawnSync(process.execPath, [cli, 'generate', '--schema', 'prisma/schema.prisma'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
