import { aptInstall, canInstallWithApt, findOnPath } from '../apt';
import { MissingDependencyError } from '../errors';

const HOW_TO_INSTALL =
  'Install espeak-ng (Debian/Ubuntu: `sudo apt-get install espeak-ng`; macOS: `brew install espeak-ng`), ' +
  'or set ESPEAK_PATH.';

/**
 * espeak-ng, which the worker runs for text_to_speech's local route. Like
 * ffmpeg it is the system's: installed with apt-get on Debian/Ubuntu as
 * root, named in the error otherwise.
 */
export function findOrInstallEspeak(log: (line: string) => void): string {
  const existing = findOnPath('espeak-ng');
  if (existing) return existing;
  if (!canInstallWithApt()) throw new MissingDependencyError(`espeak-ng was not found on PATH. ${HOW_TO_INSTALL}`);
  aptInstall('espeak-ng', log, HOW_TO_INSTALL);
  const installed = findOnPath('espeak-ng');
  if (!installed) {
    throw new MissingDependencyError(`Installed espeak-ng, but it is still not on PATH. ${HOW_TO_INSTALL}`);
  }
  return installed;
}
