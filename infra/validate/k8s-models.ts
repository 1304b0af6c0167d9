import type { Json } from './files';

// Schema validation of every object with the kubernetes-models classes (the
// OpenAPI schemas of the Kubernetes API and of KEDA's CRDs). The packages are
// ES modules only, hence import().

type ModelClass = new (data: Json) => { validate(): void };
type Loader = () => Promise<Record<string, unknown>>;

const GROUPS: Record<string, Loader> = {
  v1: () => import('kubernetes-models/v1'),
  'apps/v1': () => import('kubernetes-models/apps/v1'),
  'batch/v1': () => import('kubernetes-models/batch/v1'),
  'policy/v1': () => import('kubernetes-models/policy/v1'),
  'autoscaling/v2': () => import('kubernetes-models/autoscaling/v2'),
  'keda.sh/v1alpha1': () => import('@kubernetes-models/keda/keda.sh/v1alpha1'),
};

export async function validateModels(objects: Json[], where: string): Promise<string[]> {
  const problems: string[] = [];
  for (const o of objects) {
    const apiVersion = String(o['apiVersion']);
    const kind = String(o['kind']);
    const name = `${where}: ${kind}/${String((o['metadata'] as Json | undefined)?.['name'])}`;
    const load = GROUPS[apiVersion];
    const Model = load ? ((await load())[kind] as ModelClass | undefined) : undefined;
    if (!Model) {
      problems.push(`${name}: no schema for ${apiVersion} ${kind} (add it to infra/validate/k8s-models.ts)`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`);
    }
  }
  return problems;
}
