// One jest run for the whole monorepo. TypeScript is compiled by @swc/jest to
// CommonJS (no type checking here: `npm run typecheck` does that). globalSetup
// finds or starts PostgreSQL, Redis and S3 once per run and migrates the
// template database; each test file then calls createTestEnv() from @weft/testing.
const os = require('node:os');

// The AWS SDK warns in every process about a Node version it will stop
// supporting in future releases; it says nothing about this code.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/infra', '<rootDir>/clients'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/src/generated/'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  // file-type and its dependencies are published as ES modules only. Node runs
  // them through require(esm), but jest has its own module loader that cannot,
  // so these few are compiled to CommonJS like our own sources. apify-client
  // loads proxy-agent with import(), which jest's loader cannot run either:
  // compiled, it becomes a require.
  transformIgnorePatterns: [
    '/node_modules/(?!(file-type|strtok3|token-types|uint8array-extras|@tokenizer/inflate|@borewit/text-codec|apify-client)/)',
  ],
  // @weft/sdk's package.json points at its build (dist/), for publishing; tests use its sources (tsconfig.base.json's paths).
  moduleNameMapper: {
    '^@weft/sdk$': '<rootDir>/packages/sdk/src/index.ts',
    '^@weft/sdk/browser$': '<rootDir>/packages/sdk/src/browser.ts',
  },
  globalSetup: '<rootDir>/packages/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/testing/src/global-teardown.ts',
  // Integration tests mostly wait on I/O, so two workers pay off even on two cores
  // (jest's default, cores - 1, would run every file one after another there).
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
  testTimeout: 30_000,
};
