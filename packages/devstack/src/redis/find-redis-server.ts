import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { aptInstall, canInstallWithApt, findOnPath } from '../apt';
import { MissingDependencyError } from '../errors';

// No npm package ships a Redis server, so the embedded Redis is the system's
// `redis-server`. On Debian/Ubuntu as root (containers, CI) we install it; in
// every other case we say exactly what to install.

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
  aptInstall('redis-server', log, 'Install redis-server yourself, or set REDIS_URL.');
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
