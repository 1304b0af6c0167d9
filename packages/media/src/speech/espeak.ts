import { spawn } from 'node:child_process';

// espeak-ng, the worker's own text-to-speech: a system program like ffmpeg
// (ESPEAK_PATH), killed when the node is aborted.

export interface EspeakRun {
  espeak: string;
  signal: AbortSignal;
}

export interface Speech {
  /** A language (`en`, `fr`, `pt-br`) or an espeak-ng voice name (`en-us`, `en+f3`). */
  voice: string;
  /** Words per minute; espeak-ng's default (175) when absent. */
  wordsPerMinute?: number;
  /** A UTF-8 file of the text, read by espeak-ng (never passed as an argument). */
  textFile: string;
  /** The WAV file to write. */
  output: string;
}

/** The voice espeak-ng was asked for is not one it has. */
export class UnknownVoiceError extends Error {}

// A voice is looked up by name in espeak-ng's data: no path separators or
// dots, so a name never leads to another file.
const VOICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_+-]{0,63}$/;

/** Speaks `textFile` into `output`; rejects with UnknownVoiceError for a voice espeak-ng lacks. */
export function speak(run: EspeakRun, speech: Speech): Promise<void> {
  if (!VOICE_NAME.test(speech.voice)) return Promise.reject(new UnknownVoiceError(`no voice '${speech.voice}'`));
  const args = [
    '-v',
    speech.voice,
    ...(speech.wordsPerMinute !== undefined ? ['-s', String(Math.round(speech.wordsPerMinute))] : []),
    '-b',
    '1', // the text file is UTF-8
    '-w',
    speech.output,
    '-f',
    speech.textFile,
  ];
  return new Promise((resolve, reject) => {
    if (run.signal.aborted) return reject(run.signal.reason);
    const child = spawn(run.espeak, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const onAbort = () => child.kill('SIGKILL');
    run.signal.addEventListener('abort', onAbort, { once: true });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    child.on('error', (err) => {
      run.signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code, killSignal) => {
      run.signal.removeEventListener('abort', onAbort);
      if (run.signal.aborted) reject(run.signal.reason);
      else if (code === 0) resolve();
      else if (/voice does not exist|Failed to read voice/i.test(stderr)) {
        reject(new UnknownVoiceError(`no voice '${speech.voice}'`));
      } else
        reject(new Error(`${run.espeak} ${killSignal ? `killed (${killSignal})` : `exit ${code}`}: ${stderr.trim()}`));
    });
  });
}
