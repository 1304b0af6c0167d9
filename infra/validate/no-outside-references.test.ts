import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './files';

// The repository must explain itself: a comment, a doc or an error message that
// sends the reader to a specification or design note kept outside it points
// at something a reader of the repository does not have. Cite docs/api.md and
// the other documents in docs/ instead.

const OUTSIDE = [
  /\binterface\.md\b/i,
  /\bextensions\.md\b/i,
  /\.\.\/shared\b/,
  /\bshared\/(spec|design|hooks)\//,
  /\bperformance-facts\.md\b/,
];

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && !file.split('/').includes('node_modules'));
}

test('no tracked file refers to documents kept outside the repository', () => {
  const files = trackedFiles();
  expect(files.length).toBeGreaterThan(100);
  const found: string[] = [];
  for (const file of files) {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full)) continue;
    const text = fs.readFileSync(full, 'utf8');
    if (text.includes('\0')) continue;
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.some((pattern) => pattern.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(found).toEqual([]);
});
