import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { ROOT } from './files';

// The images install only `npm ci --omit=dev --workspace=<app>` (docs/adr/0007).
// Every package a bundle in dist/ leaves external must therefore be a
// production dependency of that workspace or of a @weft package it depends on;
// otherwise the bundle works here (the full node_modules) and fails in the image.

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

function workspaceManifests(): Map<string, { dir: string; manifest: Manifest }> {
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const out = new Map<string, { dir: string; manifest: Manifest }>();
  for (const pattern of root.workspaces) {
    const dirs = pattern.endsWith('/*')
      ? fs.readdirSync(path.join(ROOT, pattern.slice(0, -2))).map((d) => path.posix.join(pattern.slice(0, -2), d))
      : [pattern];
    for (const dir of dirs) {
      const file = path.join(ROOT, dir, 'package.json');
      if (!fs.existsSync(file)) continue;
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
      out.set(manifest.name, { dir, manifest });
    }
  }
  return out;
}

/** Production dependencies reachable from a workspace through its @weft dependencies. */
function productionClosure(workspaceDir: string): Set<string> {
  const workspaces = workspaceManifests();
  const start = [...workspaces.values()].find((w) => w.dir === workspaceDir);
  if (!start) throw new Error(`${workspaceDir} is not a workspace`);
  const seen = new Set<string>();
  const deps = new Set<string>();
  const visit = (manifest: Manifest) => {
    if (seen.has(manifest.name)) return;
    seen.add(manifest.name);
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const workspace = workspaces.get(name);
      if (workspace) visit(workspace.manifest);
      else deps.add(name);
    }
  };
  visit(start.manifest);
  return deps;
}

const packageName = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Problems for each server bundle of dist/meta.json (written by scripts/build.ts). */
export function checkDistDependencies(): string[] {
  const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'meta.json'), 'utf8')) as {
    outputs: Record<string, { entryPoint?: string; imports: Array<{ path: string; external?: boolean }> }>;
  };
  const problems: string[] = [];
  for (const [output, info] of Object.entries(meta.outputs)) {
    if (!info.entryPoint) continue;
    // apps/gateway/src/main.ts → apps/gateway
    const workspaceDir = info.entryPoint.split('/').slice(0, 2).join('/');
    const allowed = productionClosure(workspaceDir);
    for (const spec of new Set(info.imports.filter((i) => i.external).map((i) => i.path))) {
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      const name = packageName(spec);
      if (!allowed.has(name)) {
        problems.push(
          `${output} requires ${name}, which is not a production dependency of ${workspaceDir} or its @weft packages`,
        );
      }
    }
  }
  return problems;
}
