import { findOrInstallFfmpeg } from '@weft/devstack';

// jest's globalSetup for `npm run test:unit`: unit suites use no service, but a
// few of the media package's run ffmpeg, which the full run's globalSetup also
// finds or installs.
export default function unitGlobalSetup(): void {
  const lines: string[] = [];
  findOrInstallFfmpeg((line) => lines.push(line));
  for (const line of lines) process.stderr.write(`  ${line}\n`);
}
