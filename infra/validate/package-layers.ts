import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './files';

// ARCHITECTURE.md#packages-and-their-edges draws the workspaces in layers; a
// workspace depends only on workspaces of lower layers. ESLint keeps each
// file's imports within its package.json; this keeps package.json within the layers.

export interface Workspace {
  /** The name without its scope: `engine` for `@weft/engine`. */
  name: string;
  dependencies: string[];
  devDependencies: string[];
}

export function workspaces(): Workspace[] {
  const { workspaces: globs } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  const dirs = globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? fs.readdirSync(path.join(ROOT, glob.slice(0, -2))).map((d) => path.join(glob.slice(0, -2), d))
      : [glob],
  );
  const ours = (deps: Record<string, string> | undefined) =>
    Object.keys(deps ?? {})
      .filter((d) => d.startsWith('@weft/'))
      .map((d) => d.slice('@weft/'.length));
  return dirs
    .filter((dir) => fs.existsSync(path.join(ROOT, dir, 'package.json')))
    .map((dir) => {
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      return {
        name: pkg.name.replace(/^@weft\//, ''),
        dependencies: ours(pkg.dependencies),
        devDependencies: ours(pkg.devDependencies),
      };
    });
}

/** Each workspace's layer, from the diagram's lines `N │ name name ...`. */
export function layersOf(architecture: string): Map<string, number> {
  const section = /^## Packages and their edges\n[\s\S]*?```\n([\s\S]*?)```/m.exec(architecture)?.[1];
  if (!section) throw new Error('ARCHITECTURE.md has no layer diagram under "## Packages and their edges"');
  const layers = new Map<string, number>();
  for (const line of section.split('\n')) {
    const m = /^\s*(\d+)\s*│(.*)$/.exec(line);
    if (!m) continue;
    for (const name of m[2]!.trim().split(/\s+/)) layers.set(name, Number(m[1]));
  }
  return layers;
}

export interface Edge {
  from: string;
  to: string;
  dev: boolean;
}

/** Declared dependencies that do not point to a lower layer. */
export function edgesAgainstLayers(all: Workspace[], layers: Map<string, number>): Edge[] {
  const wrong: Edge[] = [];
  for (const ws of all) {
    const own = layers.get(ws.name)!;
    for (const to of ws.dependencies) {
      if (!(layers.get(to)! < own)) wrong.push({ from: ws.name, to, dev: false });
    }
    for (const to of ws.devDependencies) {
      if (!(layers.get(to)! < own)) wrong.push({ from: ws.name, to, dev: true });
    }
  }
  return wrong;
}

/** The test-only edges ARCHITECTURE.md lists as not yet in line: `from → to`. */
export function toleratedTestEdges(architecture: string): string[] {
  const paragraph = /^Test-only edges against the layers[^\n]*\n?([^\n]*\n)*?\n/m.exec(architecture)?.[0] ?? '';
  return [...paragraph.matchAll(/`([\w-]+) → ([\w-]+)`/g)].map((m) => `${m[1]} → ${m[2]}`);
}
