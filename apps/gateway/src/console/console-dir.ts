import path from 'node:path';

/**
 * dist/console, where `npm run build` puts the console. dist/ mirrors the
 * source tree (scripts/build.ts), but this code runs from two places: this
 * file under tsx or jest (<root>/apps/gateway/src/console/), or bundled into
 * <root>/dist/apps/gateway/src/main.js, which is already inside dist/.
 */
function defaultConsoleDir(): string {
  const fromSource = path.extname(__filename) === '.ts';
  return fromSource
    ? path.resolve(__dirname, '..', '..', '..', '..', 'dist', 'console')
    : path.resolve(__dirname, '..', '..', '..', 'console');
}

export const DEFAULT_CONSOLE_DIR = defaultConsoleDir();
