import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MissingDependencyError } from '../errors';

// No npm package ships a Redis server, so the embedded Redis is the system's
// `redis-server`. On Debian/Ubuntu as root (containers, CI) we install it; in
// every other case we say exactly what to install.

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

function canInstallWithApt(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0 && findOnPath('apt-get') !== undefined;
}

/**
 * Path of `redis-server`, installing Debian's package when possible. `installed`
 * tells the caller that the package may have started a system Redis of its own.
 */
export function findOrInstallRedisServer(log: (line: string) => void): { path: string; installed: boolean } {
  const found = findOnPath('redis-server');
  if (found) return { path: found, installed: false };
  if (!canInstallWithApt()) {
    throw new MissingDependencyError(
      'redis-server was not found on PATH. Install Redis 6.2 or newer ' +
        '(Debian/Ubuntu: `sudo apt-get install redis-server`; macOS: `brew install redis`; ' +
        'Fedora: `sudo dnf install redis`), or set REDIS_URL to a running Redis.',
    );
  }
  log('redis: redis-server is not installed; installing the Debian package (apt-get install redis-server)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'redis-server']]) {
    const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    if (result.status !== 0) {
      throw new MissingDependencyError(
        `apt-get ${args.join(' ')} failed (exit ${result.status}): ${(result.stderr || result.stdout).trim().slice(-800)}. ` +
          'Install redis-server yourself, or set REDIS_URL.',
      );
    }
  }
  const installed = findOnPath('redis-server') ?? tryWhich();
  if (!installed) throw new MissingDependencyError('Installed redis-server, but it is still not on PATH.');
  return { path: installed, installed: true };
}

function tryWhich(): string | undefined {
  for (const candidate of ['/usr/bin/redis-server', '/usr/sbin/redis-server']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
