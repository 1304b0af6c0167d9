// Flat config. TypeScript files are linted with type information (one program
// over tsconfig.eslint.json) so that promises nobody awaits are caught; import-x
// checks the shape of the monorepo: no import cycles, workspaces imported by
// name only, and each workspace importing only what its own package.json declares.
const fs = require('node:fs');
const path = require('node:path');
const { defineConfig, globalIgnores } = require('eslint/config');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');
const reactHooks = require('eslint-plugin-react-hooks');
const importX = require('eslint-plugin-import-x');
const { createTypeScriptImportResolver } = require('eslint-import-resolver-typescript');

const ROOT = __dirname;

/** Workspace folders (apps/gateway, bench, ...) from the root package.json's globs. */
function workspaceDirs() {
  const { workspaces } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return workspaces.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? fs
          .readdirSync(path.join(ROOT, pattern.slice(0, -2)))
          .map((dir) => `${pattern.slice(0, -2)}/${dir}`)
          .filter((dir) => fs.existsSync(path.join(ROOT, dir, 'package.json')))
      : [pattern],
  );
}

/**
 * Code that runs only in a checkout: it may use devDependencies, the workspace's
 * and the root's. Tests, their helpers, bin shims that run the TypeScript
 * sources through tsx (the images run bundles instead), and a workspace's
 * scripts (generators run by hand, such as the SDK's types), and the console's
 * build configuration.
 */
const CHECKOUT_ONLY_CODE = ['**/*.test.ts', '**/src/testing/**', 'bin/**', 'scripts/**', 'vite.config.mts'];

/**
 * Construction of BullMQ Workers and Redis connections happens in the apps'
 * composition roots and processors, so that every process has one place that
 * decides how many connections it opens and with which options.
 */
const bullmqWorkerConstruction = {
  selector: "NewExpression[callee.name='Worker']",
  message: 'Construct BullMQ Workers in a composition root or in apps/worker/src/processors.',
};
const redisConstruction = {
  selector: "NewExpression[callee.name=/^(Redis|IORedis|Cluster)$/], NewExpression[callee.property.name='Cluster']",
  message:
    'Open Redis connections in a composition root, or through createProducerConnection/createWorkerConnection of @weft/queue.',
};

/** Where constructing them is the point. */
const constructionSites = [
  'apps/*/src/main.ts',
  'apps/*/src/compose.ts',
  'apps/worker/src/processors/**',
  'packages/testing/**',
  '**/*.test.ts',
  // Scripts run as processes of their own: each is its own composition root.
  'bench/**',
  'scripts/**',
  'packages/*/scripts/**',
  'infra/validate/**',
  // The connection factory that the composition roots call.
  'packages/queue/src/connections.ts',
];

/** These construct node:worker_threads Workers, which share the name but not the concern. */
const threadWorkerSites = ['packages/media/src/trace-pool.ts', 'packages/media/src/one-shot-worker.ts'];

module.exports = defineConfig([
  globalIgnores([
    '**/node_modules/',
    'packages/db/src/generated/',
    'packages/sdk/src/generated/',
    '.weft/',
    'coverage/',
    // The bundles (npm run build) and the SDK's build (npm run sdk:build).
    '**/dist/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/external-module-folders': importX.flatConfigs.typescript.settings['import-x/external-module-folders'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      // Workspaces are ours: no-cycle follows them, and stops at third-party code.
      'import-x/internal-regex': '^@weft/',
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.base.json' })],
    },
    rules: {
      // `_`-prefixed names mark parameters a signature requires but the body ignores.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // `../../packages/db/src/...` would reach around a workspace's index and its package.json.
      'import-x/no-relative-packages': 'error',
      // A workspace's surface is its index; what it does not export is its own business.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // @weft/sdk/browser is a published entry of its own, for web pages.
              group: ['@weft/*/*', '!@weft/sdk/browser'],
              message: 'Import a workspace by its name only; export what you need from its index.',
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', bullmqWorkerConstruction, redisConstruction],
      // The root package.json declares only devDependencies: tooling for the files at the root.
      'import-x/no-extraneous-dependencies': ['error', { packageDir: ROOT, devDependencies: true }],
    },
  },
  // Each workspace imports only what its own package.json declares; its tests may
  // also use the root's devDependencies (jest, supertest, ...).
  ...workspaceDirs().map((dir) => ({
    files: [`${dir}/**`],
    rules: {
      'import-x/no-extraneous-dependencies': [
        'error',
        {
          packageDir: [path.join(ROOT, dir), ROOT],
          devDependencies: dir === 'bench' ? true : CHECKOUT_ONLY_CODE.map((glob) => path.join(ROOT, dir, glob)),
          includeInternal: true,
        },
      ],
    },
  })),
  {
    files: constructionSites,
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: threadWorkerSites,
    rules: { 'no-restricted-syntax': ['error', redisConstruction] },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      // One program over every TypeScript file (tsconfig.eslint.json): the project
      // service would build one per workspace tsconfig, each holding the sources
      // of the workspaces it imports, which doubled the time of a lint.
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: ROOT },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The console's page code runs in the browser, in a program of its own (JSX, DOM types).
    files: ['apps/console/src/app/**/*.{ts,tsx}', 'apps/console/vite.config.mts'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: {
      globals: globals.browser,
      parserOptions: { project: './apps/console/tsconfig.json', tsconfigRootDir: ROOT },
    },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    // Plain .js files at the root and in scripts/ are CommonJS run directly by Node.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
]);
