import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/** The repository root (this file is infra/validate/files.ts). */
export const ROOT = path.resolve(__dirname, '..', '..');

export const PATHS = {
  dockerfile: 'infra/docker/Dockerfile',
  dockerignore: '.dockerignore',
  compose: 'docker-compose.yml',
  prometheusConfig: 'infra/prometheus/prometheus.yml',
  prometheusRules: 'infra/prometheus/alerts.yml',
  grafanaProvisioning: 'infra/grafana/provisioning',
  grafanaDashboards: 'infra/grafana/dashboards',
  k8s: 'infra/k8s',
  gatewayConfig: 'apps/gateway/src/config.ts',
  workerConfig: 'apps/worker/src/config.ts',
} as const;

export function readText(rel: string): string {
  return fs.readFileSync(path.join(ROOT, rel), 'utf8');
}

/** Parses YAML strictly: a duplicate key or a syntax error is an error, not a warning. */
export function parseYaml(text: string, name: string, options: { merge?: boolean } = {}): unknown {
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true, merge: options.merge ?? false });
  if (doc.errors.length > 0) throw new Error(`${name}: ${doc.errors.map((e) => e.message).join('; ')}`);
  return doc.toJS();
}

/** Every document of a multi-document YAML file (Kubernetes manifests), empty ones dropped. */
export function parseYamlDocuments(text: string, name: string): unknown[] {
  return YAML.parseAllDocuments(text, { uniqueKeys: true }).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${name}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

export function readYaml(rel: string): unknown {
  return parseYaml(readText(rel), rel);
}

/** Files under `rel` (recursively) whose names end with one of `extensions`, as repository-relative paths. */
export function listFiles(rel: string, extensions: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const child = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (extensions.some((ext) => entry.name.endsWith(ext))) out.push(child);
    }
  };
  walk(rel);
  return out.sort();
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
