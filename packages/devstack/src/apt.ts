import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MissingDependencyError } from './errors';

// Programs no npm package ships (redis-server, ffmpeg) come from the system.
// On Debian/Ubuntu as root (containers, CI) we install them with apt-get; in
// every other case the caller says exactly what to install.

export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

export function canInstallWithApt(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0 && findOnPath('apt-get') !== undefined;
}

/** `apt-get update && apt-get install -y --no-install-recommends <pkg>`; `hint` ends the error message. */
export function aptInstall(pkg: string, log: (line: string) => void, hint: string): void {
  log(`${pkg}: not installed; installing the Debian package (apt-get install ${pkg})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', pkg]]) {
    const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    if (result.status !== 0) {
      throw new MissingDependencyError(
        `apt-get ${args.join(' ')} failed (exit ${result.status}): ${(result.stderr || result.stdout).trim().slice(-800)}. ${hint}`,
      );
    }
  }
}
