import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isObject, parseYaml, parseYamlDocuments, ROOT, type Json } from './files';

// Builds a kustomization the way `kubectl kustomize` would, for the features
// infra/k8s uses (resources, components, namespace, images, JSON 6902 patches),
// so CI needs no kubectl. When kubectl is installed, main.ts validates its
// build as well.

export interface Built {
  objects: Json[];
  problems: string[];
}

const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'resources',
  'components',
  'namespace',
  'images',
  'patches',
  'labels',
]);

export function buildKustomization(dirRel: string): Built {
  const problems: string[] = [];
  const objects = build(path.join(ROOT, dirRel), problems);
  return { objects, problems };
}

function build(dir: string, problems: string[]): Json[] {
  const file = path.join(dir, 'kustomization.yaml');
  const rel = path.relative(ROOT, file);
  if (!fs.existsSync(file)) {
    problems.push(`${path.relative(ROOT, dir)}: no kustomization.yaml`);
    return [];
  }
  const k = parseYaml(fs.readFileSync(file, 'utf8'), rel);
  if (!isObject(k)) {
    problems.push(`${rel}: not a mapping`);
    return [];
  }
  for (const key of Object.keys(k))
    if (!SUPPORTED.has(key)) problems.push(`${rel}: ${key} is not understood by infra/validate/k8s-build.ts`);
  let objects: Json[] = [];
  for (const entry of list(k['resources'])) {
    const target = path.resolve(dir, entry);
    if (!target.startsWith(dir + path.sep) && !entry.startsWith('../'))
      problems.push(`${rel}: odd resource path ${entry}`);
    if (!fs.existsSync(target)) problems.push(`${rel}: resource ${entry} does not exist`);
    else if (fs.statSync(target).isDirectory()) objects.push(...build(target, problems));
    else objects.push(...(parseYamlDocuments(fs.readFileSync(target, 'utf8'), path.relative(ROOT, target)) as Json[]));
  }
  for (const entry of list(k['components'])) {
    const target = path.resolve(dir, entry);
    const component = path.join(target, 'kustomization.yaml');
    if (!fs.existsSync(component)) {
      problems.push(`${rel}: component ${entry} does not exist`);
      continue;
    }
    const c = parseYaml(fs.readFileSync(component, 'utf8'), component);
    if (!isObject(c) || c['kind'] !== 'Component') problems.push(`${rel}: ${entry} is not a kind: Component`);
    objects.push(...build(target, problems));
  }
  for (const patch of Array.isArray(k['patches']) ? k['patches'] : [])
    objects = applyPatch(dir, rel, patch, objects, problems);
  for (const image of Array.isArray(k['images']) ? k['images'] : []) renameImage(image, objects, rel, problems);
  if (typeof k['namespace'] === 'string') {
    for (const o of objects) {
      if (o['kind'] !== 'Namespace' && isObject(o['metadata'])) o['metadata']['namespace'] = k['namespace'];
    }
  }
  return objects;
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function applyPatch(dir: string, rel: string, patch: unknown, objects: Json[], problems: string[]): Json[] {
  if (!isObject(patch) || typeof patch['path'] !== 'string' || !isObject(patch['target'])) {
    problems.push(`${rel}: only patches with path and target are supported`);
    return objects;
  }
  const target = patch['target'];
  const ops = parseYaml(fs.readFileSync(path.join(dir, patch['path']), 'utf8'), patch['path']);
  const matches = objects.filter(
    (o) =>
      o['kind'] === target['kind'] &&
      (target['name'] === undefined || (isObject(o['metadata']) && o['metadata']['name'] === target['name'])),
  );
  if (matches.length === 0) problems.push(`${rel}: patch ${patch['path']} matches no object`);
  if (!Array.isArray(ops)) {
    problems.push(`${rel}: ${patch['path']} must be a JSON 6902 list of operations`);
    return objects;
  }
  for (const object of matches) {
    for (const op of ops) {
      if (!isObject(op) || (op['op'] !== 'replace' && op['op'] !== 'add') || typeof op['path'] !== 'string') {
        problems.push(`${rel}: ${patch['path']}: only replace/add operations are supported`);
        continue;
      }
      const keys = op['path']
        .split('/')
        .slice(1)
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      let node: unknown = object;
      for (const key of keys.slice(0, -1))
        node = isObject(node) || Array.isArray(node) ? (node as Json)[key] : undefined;
      const last = keys.at(-1)!;
      if (!(isObject(node) || Array.isArray(node)) || (op['op'] === 'replace' && !(last in node))) {
        problems.push(`${rel}: ${patch['path']}: ${op['path']} does not exist`);
        continue;
      }
      (node as Json)[last] = op['value'];
    }
  }
  return objects;
}

function renameImage(image: unknown, objects: Json[], rel: string, problems: string[]): void {
  if (!isObject(image) || typeof image['name'] !== 'string') return;
  let used = false;
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'image' && typeof value === 'string' && value.split(':')[0] === image['name']) {
          const tag = image['newTag'] ?? value.split(':')[1];
          node[key] = `${String(image['newName'] ?? image['name'])}${tag ? `:${String(tag)}` : ''}`;
          used = true;
        } else visit(value);
      }
    }
  };
  visit(objects);
  if (!used) problems.push(`${rel}: image ${image['name']} is not used by any container`);
}

/** `kubectl kustomize <dir>`, when kubectl is installed; undefined otherwise. */
export function kubectlKustomize(dirRel: string): Json[] | undefined {
  const result = spawnSync('kubectl', ['kustomize', path.join(ROOT, dirRel)], { encoding: 'utf8', timeout: 30_000 });
  if (result.error) return undefined;
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dirRel} failed:\n${result.stderr}`);
  return parseYamlDocuments(result.stdout, `kubectl kustomize ${dirRel}`) as Json[];
}
