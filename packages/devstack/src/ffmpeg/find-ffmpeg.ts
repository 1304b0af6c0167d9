import { aptInstall, canInstallWithApt, findOnPath } from '../apt';
import { MissingDependencyError } from '../errors';

export interface FfmpegPaths {
  ffmpeg: string;
  ffprobe: string;
}

const HOW_TO_INSTALL =
  'Install ffmpeg (Debian/Ubuntu: `sudo apt-get install ffmpeg`; macOS: `brew install ffmpeg`), ' +
  'or set FFMPEG_PATH and FFPROBE_PATH.';

/**
 * ffmpeg and ffprobe, which the worker runs to probe videos and audio and to
 * take video stills. No npm package ships them for every platform, so they
 * are the system's: installed with apt-get on Debian/Ubuntu as root, named in
 * the error otherwise.
 */
export function findOrInstallFfmpeg(log: (line: string) => void): FfmpegPaths {
  const found = () => {
    const ffmpeg = findOnPath('ffmpeg');
    const ffprobe = findOnPath('ffprobe');
    return ffmpeg && ffprobe ? { ffmpeg, ffprobe } : undefined;
  };
  const existing = found();
  if (existing) return existing;
  if (!canInstallWithApt()) throw new MissingDependencyError(`ffmpeg was not found on PATH. ${HOW_TO_INSTALL}`);
  aptInstall('ffmpeg', log, HOW_TO_INSTALL);
  const installed = found();
  if (!installed) throw new MissingDependencyError(`Installed ffmpeg, but it is still not on PATH. ${HOW_TO_INSTALL}`);
  return installed;
}
