import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

/** Real media a double serves as the files its items name: a PNG drawn by sharp and an H.264 MP4 made by ffmpeg. */
export interface DoubleMedia {
  png: Buffer;
  mp4: Buffer;
}

let made: Promise<DoubleMedia> | undefined;

async function make(): Promise<DoubleMedia> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apify-double-'));
  try {
    const out = path.join(dir, 'clip.mp4');
    execFileSync('ffmpeg', [
      '-nostdin',
      '-hide_banner',
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=160x120:rate=10:duration=1',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      out,
    ]);
    return { png, mp4: fs.readFileSync(out) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The media, made once per process. */
export function doubleMedia(): Promise<DoubleMedia> {
  made ??= make();
  return made;
}
