import { envKeysOf, numericDefaultOf } from './app-env';
import { checkComposeSchema, checkComposeStack } from './compose-checks';
import { checkDockerfile } from './dockerfile-rules';
import { parseStages } from './dockerfile-stages';
import { PATHS, parseYaml, readText, type Json } from './files';
import { buildKustomization } from './k8s-build';
import { checkK8s, type K8sExpectations } from './k8s-checks';
import { parsePromql } from './promql';

// The validator's own checks: the files in the repository pass, and a broken
// copy of each fails with the rule that caught it.

const clone = <T>(value: T): T => structuredClone(value);

describe('Dockerfile rules', () => {
  it('accept infra/docker/Dockerfile', () => {
    expect(checkDockerfile(parseStages(readText(PATHS.dockerfile)))).toEqual([]);
  });

  it('catch latest, root, missing HEALTHCHECK and uncleaned apt lists', () => {
    const broken = [
      'FROM node:latest AS gateway',
      'RUN apt-get update && apt-get install -y curl',
      'CMD node dist/main.js',
    ].join('\n');
    const problems = checkDockerfile(parseStages(broken)).join('\n');
    expect(problems).toMatch(/uses latest/);
    expect(problems).toMatch(/no USER/);
    expect(problems).toMatch(/no HEALTHCHECK/);
    expect(problems).toMatch(/DL3009/);
    expect(problems).toMatch(/DL3015/);
    expect(problems).toMatch(/shell form/);
    expect(problems).toMatch(/target worker is missing/);
  });

  it("catch a gateway image without the console's files", () => {
    const withoutConsole = readText(PATHS.dockerfile).replace(/^COPY --from=build \/app\/dist\/console\/.*$/m, '');
    expect(checkDockerfile(parseStages(withoutConsole))).toEqual([
      'target gateway: does not COPY --from=build /app/dist/console/ dist/console/',
    ]);
  });
});

describe('compose checks', () => {
  const compose = parseYaml(readText(PATHS.compose), PATHS.compose, { merge: true }) as Json;
  const expectations = {
    gatewayEnv: ['DATABASE_URL', 'ADMIN_TOKEN'],
    workerEnv: ['DATABASE_URL', 'WORKER_SHUTDOWN_GRACE_SECONDS'],
    forbiddenEnv: ['RUN_FAULT_EXIT_AFTER_COMMIT'],
    workerShutdownGraceSeconds: 30,
  };

  it('accept docker-compose.yml', () => {
    expect(checkComposeSchema(compose)).toEqual([]);
    expect(checkComposeStack(compose, expectations)).toEqual([]);
  });

  it('catch an eviction policy, a dangling depends_on, one worker and a short grace period', () => {
    const broken = clone(compose);
    const services = broken['services'] as Record<string, Json>;
    services['redis']!['command'] = ['redis-server', '--maxmemory-policy', 'allkeys-lru', '--appendonly', 'yes'];
    services['worker']!['deploy'] = { replicas: 1 };
    services['worker']!['stop_grace_period'] = '10s';
    (services['gateway']!['depends_on'] as Json)['nope'] = { condition: 'service_healthy' };
    delete (services['gateway']!['environment'] as Json)['ADMIN_TOKEN'];
    const problems = checkComposeStack(broken, expectations).join('\n');
    expect(problems).toMatch(/noeviction/);
    expect(problems).toMatch(/depends_on nope, which is not a service/);
    expect(problems).toMatch(/replicas must be 2/);
    expect(problems).toMatch(/stop_grace_period \(10s\) must exceed/);
    expect(problems).toMatch(/does not set ADMIN_TOKEN/);
  });

  it('reject what the compose specification does not allow', () => {
    const broken = clone(compose);
    (broken['services'] as Record<string, Json>)['worker']!['restart_policy'] = 'always';
    expect(checkComposeSchema(broken).join('\n')).toMatch(/additional properties/);
  });
});

describe('PromQL', () => {
  it('parses a histogram quantile and names its metrics', () => {
    const result = parsePromql('histogram_quantile(0.95, sum by (le) (rate(weft_job_wait_seconds_bucket[5m])))');
    expect(result).toEqual({ errors: [], metrics: ['weft_job_wait_seconds_bucket'] });
  });

  it('reports a syntax error', () => {
    expect(parsePromql('sum(rate(weft_runs_started_total[5m]) by').errors).not.toEqual([]);
  });
});

describe('app settings', () => {
  it('reads keys and shared shapes from a config.ts', () => {
    const source = [
      'const Env = z.object({',
      '  PORT: envPort().default(8080),',
      '  ...s3EnvShape,',
      "  ...otelEnvShape('weft-gateway'),",
      '  GRACE: envInt(1, 60).default(30),',
      '});',
    ].join('\n');
    const keys = envKeysOf(source, 'config.ts');
    expect(keys).toEqual(expect.arrayContaining(['PORT', 'GRACE', 'S3_BUCKET', 'OTEL_EXPORTER_OTLP_ENDPOINT']));
    expect(numericDefaultOf(source, 'GRACE')).toBe(30);
  });

  it('refuses a spread it cannot resolve', () => {
    expect(() => envKeysOf('  A: x,\n  ...somethingElse,\n', 'config.ts')).toThrow(/somethingElse/);
  });
});

describe('Kubernetes checks', () => {
  const expectations: K8sExpectations = {
    gatewayEnv: ['DATABASE_URL', 'PORT', 'ADMIN_TOKEN'],
    workerEnv: ['DATABASE_URL', 'WORKER_SHUTDOWN_GRACE_SECONDS'],
    forbiddenEnv: ['RUN_FAULT_EXIT_AFTER_COMMIT'],
    secretKeys: ['DATABASE_URL', 'REDIS_URL', 'REDIS_PASSWORD', 'ADMIN_TOKEN'],
    workerShutdownGraceSeconds: 30,
    queues: ['nodes-light', 'nodes-heavy', 'assets', 'webhooks'],
  };
  const built = buildKustomization(`${PATHS.k8s}/overlays/production`);
  const find = (objects: Json[], kind: string, name: string) =>
    objects.find((o) => o['kind'] === kind && (o['metadata'] as Json)['name'] === name) as Json;
  const container = (deployment: Json) => ((deployment['spec'] as Json)['template'] as Json)['spec'] as Json;

  it('accept the production overlay', () => {
    expect(built.problems).toEqual([]);
    expect(checkK8s(built.objects, expectations)).toEqual([]);
  });

  it('catch a wrong probe, a short worker grace period and two worker autoscalers', () => {
    const objects = clone(built.objects);
    const gateway = container(find(objects, 'Deployment', 'weft-gateway'));
    ((gateway['containers'] as Json[])[0]!['readinessProbe'] as Json)['httpGet'] = { path: '/healthz', port: 'http' };
    container(find(objects, 'Deployment', 'weft-worker'))['terminationGracePeriodSeconds'] = 30;
    const hpa = clone(find(objects, 'HorizontalPodAutoscaler', 'weft-gateway'));
    (hpa['metadata'] as Json)['name'] = 'weft-worker';
    ((hpa['spec'] as Json)['scaleTargetRef'] as Json)['name'] = 'weft-worker';
    objects.push(hpa);
    const problems = checkK8s(objects, expectations).join('\n');
    expect(problems).toMatch(/readinessProbe must GET \/readyz/);
    expect(problems).toMatch(/terminationGracePeriodSeconds 30 must exceed WORKER_SHUTDOWN_GRACE_SECONDS 30/);
    expect(problems).toMatch(/exactly one autoscaler/);
  });

  it('catch a setting that is not wired and a KEDA list that is not a queue', () => {
    const problems = checkK8s(built.objects, {
      ...expectations,
      gatewayEnv: [...expectations.gatewayEnv, 'NEW_SETTING'],
      queues: ['nodes-light', 'nodes-heavy', 'assets', 'webhooks', 'thumbnails'],
    }).join('\n');
    expect(problems).toMatch(/NEW_SETTING is not wired/);
    expect(problems).toMatch(/no redis trigger on weft:thumbnails:wait/);
  });
});
