import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './files';

// Comments and docs cite sections as `docs/api.md#reviews`, and Markdown links
// point at `#anchors`. A renamed heading would leave those pointing nowhere,
// silently; this finds every such citation and checks that its heading exists.

const TEXT_FILE = /\.(md|ts|js|json|ya?ml)$/;
/** A repository Markdown file named with a section: `docs/api.md#rate-limits`. */
const CITATION = /(?<![\w/.-])((?:docs\/[\w./-]+|[A-Z]+)\.md)#([\w-]+)/g;
/** A Markdown link to a section: `[text](#errors)`, `[text](api.md#errors)`. */
const LINK = /\]\(([\w./-]*\.md)?#([\w-]+)\)/g;

function trackedTextFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => TEXT_FILE.test(file) && file !== 'package-lock.json' && fs.existsSync(path.join(ROOT, file)));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string> | undefined>();
function anchorsOfFile(rel: string): Set<string> | undefined {
  if (!anchorCache.has(rel)) {
    const file = path.join(ROOT, rel);
    anchorCache.set(rel, fs.existsSync(file) ? anchorsOf(fs.readFileSync(file, 'utf8')) : undefined);
  }
  return anchorCache.get(rel);
}

interface Citation {
  in: string;
  target: string;
  anchor: string;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const file of trackedTextFiles()) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, target, anchor] of text.matchAll(CITATION))
      found.push({ in: file, target: target!, anchor: anchor! });
    if (!file.endsWith('.md')) continue;
    for (const [, target, anchor] of text.matchAll(LINK)) {
      const resolved = target ? path.posix.join(path.posix.dirname(file), target) : file;
      found.push({ in: file, target: resolved, anchor: anchor! });
    }
  }
  return found;
}

test('the anchors of headings follow GitHub', () => {
  expect([...anchorsOf('# The API\n## Idempotency with `external_id`\n## Errors\n## Errors\n')]).toEqual([
    'the-api',
    'idempotency-with-external_id',
    'errors',
    'errors-1',
  ]);
});

test('every cited section of a repository document exists', () => {
  const all = citations();
  expect(all.some((c) => c.target === 'docs/api.md')).toBe(true);
  const broken = all.filter((c) => !anchorsOfFile(c.target)?.has(c.anchor));
  expect(broken).toEqual([]);
});
