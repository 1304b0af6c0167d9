import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The gateway serves the console from dist/console (its CONSOLE_DIR default).
// `npm run dev` builds it there, as `npm run build` does (scripts/build.ts),
// when there is no build yet or the app's sources changed since the last one.

const APP_DIR = path.join('apps', 'console');
/** What a build is made from, in apps/console. */
const SOURCES = ['src', 'public', 'index.html', 'vite.config.mts'];

/** The newest modification time under `file` (a file or a folder), 0 when it does not exist. */
function newestChange(file: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(file)
    .reduce((newest, entry) => Math.max(newest, newestChange(path.join(file, entry))), stat.mtimeMs);
}

/** Why dist/console needs building (`undefined`: it is up to date). */
export function consoleBuildReason(repoRoot: string, outDir: string): string | undefined {
  const built = newestChange(path.join(outDir, 'index.html'));
  if (built === 0) return 'not built yet';
  const appDir = path.join(repoRoot, APP_DIR);
  const changed = Math.max(...SOURCES.map((source) => newestChange(path.join(appDir, source))));
  return changed > built ? 'apps/console changed since the last build' : undefined;
}

function runVite(repoRoot: string, outDir: string): Promise<void> {
  const args = ['node_modules/vite/bin/vite.js', 'build', '--config', path.join(APP_DIR, 'vite.config.mts')];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...args, '--outDir', outDir, '--emptyOutDir'],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stdout}${stderr}`.trim())) : resolve()),
    );
  });
}

/**
 * Builds the console into `outDir` when it is missing or older than its
 * sources. A failed build does not stop the stack: the API works without the
 * console, and the gateway serves the previous build, or a 404 saying it is not built.
 */
export async function ensureConsoleBuilt(repoRoot: string, outDir: string, log: (line: string) => void): Promise<void> {
  const reason = consoleBuildReason(repoRoot, outDir);
  if (!reason) return;
  log(`console: building ${path.relative(repoRoot, outDir)} (${reason})`);
  try {
    await runVite(repoRoot, outDir);
  } catch (err) {
    log(`console: the build failed; /console/ serves the previous build, if any:\n${(err as Error).message}`);
  }
}
