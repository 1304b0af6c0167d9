import fs from 'node:fs';
import path from 'node:path';
import { ASSET_QUEUE, RUN_QUEUES, WEBHOOK_QUEUE } from '@weft/queue';
import { FORBIDDEN_IN_DEPLOYMENT, numericDefaultOf, readAppEnv } from './app-env';
import { checkComposeSchema, checkComposeStack } from './compose-checks';
import { checkBuildCommand, checkDockerfile, checkDockerignore, checkManifestsCopied } from './dockerfile-rules';
import { parseStages } from './dockerfile-stages';
import { PATHS, ROOT, isObject, listFiles, parseYaml, readText, readYaml } from './files';
import { checkDashboard, checkDashboardProviders, checkDatasources } from './grafana-checks';
import { buildKustomization, kubectlKustomize } from './k8s-build';
import { checkK8s } from './k8s-checks';
import { validateModels } from './k8s-models';
import { checkPrometheusConfig, checkRuleGroups } from './prometheus-checks';
import { parsePromql } from './promql';

// `npm run infra:check` (a step of .ci/run): validates the Dockerfile, the
// compose stack, Prometheus and Grafana provisioning and the Kubernetes
// manifests offline, and exits 1 listing every problem found.

/** The metric families dashboards and alerts may use (docs/operations.md ## Metrics); another test checks exact names. */
const METRIC_PREFIXES = ['weft_', 'process_', 'nodejs_', 'up'];

type Section = [name: string, run: () => string[] | Promise<string[]>];

function workerGraceDefault(): number {
  const value = numericDefaultOf(readText(PATHS.workerConfig), 'WORKER_SHUTDOWN_GRACE_SECONDS');
  if (value === undefined) throw new Error(`${PATHS.workerConfig}: no default for WORKER_SHUTDOWN_GRACE_SECONDS`);
  return value;
}

function readSecretKeys(): string[] {
  return readText('infra/k8s/secrets.env.example')
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((key): key is string => key !== undefined);
}

function metricNameProblems(expressions: string[]): string[] {
  return expressions.flatMap((expr) =>
    parsePromql(expr)
      .metrics.filter((m) => !METRIC_PREFIXES.some((p) => m.startsWith(p)))
      .map((m) => `metric ${m} is not one of ours (${METRIC_PREFIXES.join(', ')})`),
  );
}

const appEnv = readAppEnv();
/** The settings a deployment must wire: all but the test-only switches, which it must not set. */
const deployable = (keys: string[]) => keys.filter((key) => !FORBIDDEN_IN_DEPLOYMENT.includes(key));
const workspaces = (JSON.parse(readText('package.json')) as { workspaces: string[] }).workspaces;

const sections: Section[] = [
  [
    PATHS.dockerfile,
    () => {
      const stages = parseStages(readText(PATHS.dockerfile));
      return [
        ...checkDockerfile(stages),
        ...checkManifestsCopied(stages, workspaces),
        ...checkBuildCommand(stages),
        ...checkDockerignore(readText(PATHS.dockerignore)),
      ];
    },
  ],
  [
    PATHS.compose,
    () => {
      // Compose resolves YAML merge keys (<<: *anchor); so does the parse here.
      const compose = parseYamlWithMerge(readText(PATHS.compose));
      return [
        ...checkComposeSchema(compose),
        ...checkComposeStack(compose, {
          gatewayEnv: deployable(appEnv.gateway),
          workerEnv: deployable(appEnv.worker),
          forbiddenEnv: FORBIDDEN_IN_DEPLOYMENT,
          workerShutdownGraceSeconds: workerGraceDefault(),
        }),
        ...composeMountsExist(compose),
      ];
    },
  ],
  [
    'infra/prometheus',
    () => {
      const rules = checkRuleGroups(readYaml(PATHS.prometheusRules));
      return [
        ...checkPrometheusConfig(readYaml(PATHS.prometheusConfig), [path.basename(PATHS.prometheusRules)]),
        ...rules.problems,
        ...metricNameProblems(rules.expressions),
      ];
    },
  ],
  [
    'infra/grafana',
    () => {
      const problems: string[] = [];
      const uids: string[] = [];
      for (const file of listFiles(`${PATHS.grafanaProvisioning}/datasources`, ['.yml', '.yaml'])) {
        const ds = readYaml(file);
        problems.push(...checkDatasources(ds).map((p) => `${file}: ${p}`));
        if (isObject(ds) && Array.isArray(ds['datasources'])) {
          for (const d of ds['datasources']) if (isObject(d) && typeof d['uid'] === 'string') uids.push(d['uid']);
        }
      }
      for (const file of listFiles(`${PATHS.grafanaProvisioning}/dashboards`, ['.yml', '.yaml'])) {
        problems.push(...checkDashboardProviders(readYaml(file)).map((p) => `${file}: ${p}`));
      }
      const dashboards = listFiles(PATHS.grafanaDashboards, ['.json']);
      if (dashboards.length === 0) problems.push('no dashboards');
      for (const file of dashboards) {
        const result = checkDashboard(JSON.parse(readText(file)), uids);
        problems.push(...[...result.problems, ...metricNameProblems(result.expressions)].map((p) => `${file}: ${p}`));
      }
      return problems;
    },
  ],
  [
    PATHS.k8s,
    async () => {
      const problems: string[] = [];
      const expect = {
        gatewayEnv: deployable(appEnv.gateway),
        workerEnv: deployable(appEnv.worker),
        forbiddenEnv: FORBIDDEN_IN_DEPLOYMENT,
        secretKeys: readSecretKeys(),
        workerShutdownGraceSeconds: workerGraceDefault(),
        queues: [RUN_QUEUES.light, RUN_QUEUES.heavy, ASSET_QUEUE, WEBHOOK_QUEUE],
      };
      const overlays = fs.readdirSync(path.join(ROOT, PATHS.k8s, 'overlays'));
      if (overlays.length === 0) problems.push('no overlays');
      for (const overlay of overlays) {
        const dir = `${PATHS.k8s}/overlays/${overlay}`;
        const built = buildKustomization(dir);
        problems.push(...built.problems);
        problems.push(...(await validateModels(built.objects, dir)));
        problems.push(...checkK8s(built.objects, expect).map((p) => `${dir}: ${p}`));
        const kubectl = kubectlKustomize(dir);
        if (kubectl) {
          problems.push(...(await validateModels(kubectl, `kubectl kustomize ${dir}`)));
          problems.push(...checkK8s(kubectl, expect).map((p) => `kubectl kustomize ${dir}: ${p}`));
        }
      }
      return problems;
    },
  ],
];

function parseYamlWithMerge(text: string): unknown {
  // yaml's `merge` option is the YAML 1.1 `<<` key Compose supports.
  return parseYaml(text, PATHS.compose, { merge: true });
}

/** Bind mounts of the compose file (./infra/...) must exist in the repository. */
function composeMountsExist(compose: unknown): string[] {
  if (!isObject(compose) || !isObject(compose['services'])) return [];
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose['services'])) {
    const volumes = isObject(service) && Array.isArray(service['volumes']) ? service['volumes'] : [];
    for (const volume of volumes) {
      const source = typeof volume === 'string' ? volume.split(':')[0]! : '';
      if (source.startsWith('./') && !fs.existsSync(path.join(ROOT, source))) {
        problems.push(`${name}: bind mount ${source} does not exist`);
      }
    }
  }
  return problems;
}

async function main(): Promise<number> {
  let failed = 0;
  for (const [name, run] of sections) {
    let problems: string[];
    try {
      problems = await run();
    } catch (err) {
      problems = [(err as Error).message];
    }
    if (problems.length === 0) {
      console.log(`ok    ${name}`);
    } else {
      failed += problems.length;
      console.log(`FAIL  ${name}`);
      for (const problem of problems) console.log(`      ${problem}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
