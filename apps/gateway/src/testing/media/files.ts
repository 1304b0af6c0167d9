import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MediaDir {
  dir: string;
  /** A path in the folder. */
  file(name: string): string;
  cleanup(): void;
}

/** A temporary folder for one test file's media, removed by `cleanup` (call it in afterAll). */
export function mediaDir(): MediaDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-media-test-'));
  return {
    dir,
    file: (name) => path.join(dir, name),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
