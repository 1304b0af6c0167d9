import fs from 'node:fs';
import { aptInstall, canInstallWithApt, findOnPath } from '../apt';
import { MissingDependencyError } from '../errors';

const HOW_TO_INSTALL =
  'Install Chromium (Debian: `sudo apt-get install chromium`; Ubuntu: `sudo apt-get install chromium-browser`), ' +
  'or set CHROMIUM_PATH to a Chromium or Chrome executable.';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome'];

function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return fs.existsSync(configured) ? configured : undefined;
  for (const name of NAMES) {
    const found = findOnPath(name);
    if (found) return found;
  }
  return undefined;
}

/**
 * The browser the browser tests drive (playwright-core launches it; it
 * downloads none). Like ffmpeg it is the system's: Debian's `chromium`,
 * installed with apt-get as root, named in the error otherwise.
 */
export function findOrInstallChromium(log: (line: string) => void): string {
  const existing = findChromium();
  if (existing) return existing;
  if (process.env.CHROMIUM_PATH) {
    throw new MissingDependencyError(
      `CHROMIUM_PATH is ${process.env.CHROMIUM_PATH}, which does not exist. ${HOW_TO_INSTALL}`,
    );
  }
  if (!canInstallWithApt()) throw new MissingDependencyError(`Chromium was not found on PATH. ${HOW_TO_INSTALL}`);
  aptInstall('chromium', log, HOW_TO_INSTALL);
  const installed = findChromium();
  if (!installed)
    throw new MissingDependencyError(`Installed chromium, but it is still not on PATH. ${HOW_TO_INSTALL}`);
  return installed;
}
