import { isObject, type Json } from './files';

// What the Kubernetes API would accept but Weft would not run well with:
// probes, grace periods, env wiring, security and scaling rules.

export interface K8sExpectations {
  gatewayEnv: string[];
  workerEnv: string[];
  forbiddenEnv: string[];
  /** Keys of the Secret weft-secrets (infra/k8s/secrets.env.example). */
  secretKeys: string[];
  workerShutdownGraceSeconds: number;
  /** BullMQ queue names (packages/queue). */
  queues: string[];
}

const get = (o: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), o);
const nameOf = (o: Json) => String(get(o, 'metadata', 'name'));
const find = (objects: Json[], kind: string, name: string) =>
  objects.find((o) => o['kind'] === kind && nameOf(o) === name);

function podSpec(o: Json): Json | undefined {
  const spec = get(o, 'spec', 'template', 'spec');
  return isObject(spec) ? spec : undefined;
}

function containers(o: Json): Json[] {
  const list = get(podSpec(o), 'containers');
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** The variables a container gets: env entries plus every key of the ConfigMaps and Secrets it imports. */
export function containerEnv(container: Json, objects: Json[], secretKeys: string[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const source of Array.isArray(container['envFrom']) ? container['envFrom'] : []) {
    const cm = get(source, 'configMapRef', 'name');
    const secret = get(source, 'secretRef', 'name');
    if (typeof cm === 'string') {
      const map = find(objects, 'ConfigMap', cm);
      for (const [k, v] of Object.entries(isObject(map?.['data']) ? map['data'] : {})) env.set(k, String(v));
    }
    if (typeof secret === 'string') for (const k of secretKeys) env.set(k, '(secret)');
  }
  for (const entry of Array.isArray(container['env']) ? container['env'] : []) {
    if (isObject(entry) && typeof entry['name'] === 'string') env.set(entry['name'], String(entry['value'] ?? '(ref)'));
  }
  return env;
}

export function checkK8s(objects: Json[], expect: K8sExpectations): string[] {
  const problems: string[] = [];
  const kinds = new Map<string, number>();
  for (const o of objects) {
    const id = `${String(o['kind'])}/${nameOf(o)}`;
    kinds.set(id, (kinds.get(id) ?? 0) + 1);
  }
  for (const [id, n] of kinds) if (n > 1) problems.push(`${id} is defined ${n} times`);

  for (const o of objects) {
    if (!podSpec(o)) continue;
    const where = `${String(o['kind'])}/${nameOf(o)}`;
    const pod = podSpec(o)!;
    if (get(pod, 'securityContext', 'runAsNonRoot') !== true)
      problems.push(`${where}: securityContext.runAsNonRoot must be true`);
    const uid = get(pod, 'securityContext', 'runAsUser');
    // The images say `USER node`, a name: the kubelet can only enforce runAsNonRoot with a numeric uid.
    if (typeof uid !== 'number' || uid === 0)
      problems.push(`${where}: securityContext.runAsUser must be a non-zero uid`);
    for (const c of containers(o)) {
      const cwhere = `${where} container ${String(c['name'])}`;
      if (get(c, 'securityContext', 'allowPrivilegeEscalation') !== false)
        problems.push(`${cwhere}: allowPrivilegeEscalation must be false`);
      if (get(c, 'securityContext', 'readOnlyRootFilesystem') !== true)
        problems.push(`${cwhere}: readOnlyRootFilesystem must be true`);
      if (!isObject(get(c, 'resources', 'requests')) || get(c, 'resources', 'limits', 'memory') === undefined) {
        problems.push(`${cwhere}: needs resource requests and a memory limit`);
      }
      const image = String(c['image'] ?? '');
      if (!/:[^/]+$/.test(image) || image.endsWith(':latest'))
        problems.push(`${cwhere}: image ${image} needs a pinned tag`);
    }
  }

  problems.push(
    ...checkApp(objects, expect, 'weft-gateway', expect.gatewayEnv, { ready: '/readyz', live: '/healthz' }),
  );
  problems.push(...checkApp(objects, expect, 'weft-worker', expect.workerEnv, { ready: '/readyz', live: '/healthz' }));

  const gateway = find(objects, 'Deployment', 'weft-gateway');
  const gatewayGrace = Number(get(podSpec(gateway ?? {}), 'terminationGracePeriodSeconds') ?? 30);
  // The gateway's own drain (apps/gateway/src/main.ts) closes connections after 10 s; preStop sleeps first.
  if (gateway && gatewayGrace < 15)
    problems.push(`Deployment/weft-gateway: terminationGracePeriodSeconds ${gatewayGrace} leaves no time to drain`);

  const worker = find(objects, 'Deployment', 'weft-worker');
  if (worker) {
    const grace = Number(get(podSpec(worker), 'terminationGracePeriodSeconds') ?? 30);
    const c = containers(worker)[0];
    const env = c ? containerEnv(c, objects, expect.secretKeys) : new Map<string, string>();
    const configured = Number(env.get('WORKER_SHUTDOWN_GRACE_SECONDS') ?? expect.workerShutdownGraceSeconds);
    if (!(grace > configured)) {
      problems.push(
        `Deployment/weft-worker: terminationGracePeriodSeconds ${grace} must exceed WORKER_SHUTDOWN_GRACE_SECONDS ${configured}`,
      );
    }
  }

  for (const target of ['weft-gateway', 'weft-worker']) {
    const pdb = objects.find(
      (o) =>
        o['kind'] === 'PodDisruptionBudget' &&
        get(o, 'spec', 'selector', 'matchLabels', 'app.kubernetes.io/name') === target,
    );
    if (!pdb) problems.push(`no PodDisruptionBudget selects ${target}`);
  }
  const hpaFor = (target: string) =>
    objects.filter(
      (o) => o['kind'] === 'HorizontalPodAutoscaler' && get(o, 'spec', 'scaleTargetRef', 'name') === target,
    );
  if (hpaFor('weft-gateway').length !== 1) problems.push('the gateway needs exactly one HorizontalPodAutoscaler');
  const scaled = objects.filter(
    (o) => o['kind'] === 'ScaledObject' && get(o, 'spec', 'scaleTargetRef', 'name') === 'weft-worker',
  );
  // KEDA creates its own HPA for the target: a second one would fight it.
  if (scaled.length + hpaFor('weft-worker').length !== 1) {
    problems.push('the worker needs exactly one autoscaler: a KEDA ScaledObject or the CPU HPA, never both');
  }
  for (const so of scaled) problems.push(...checkScaledObject(so, objects, expect));

  const job = find(objects, 'Job', 'weft-migrate');
  if (!job) problems.push('no migration Job weft-migrate');
  else {
    const c = containers(job)[0];
    if (c && !containerEnv(c, objects, expect.secretKeys).has('DATABASE_URL'))
      problems.push('Job/weft-migrate: no DATABASE_URL');
  }
  return problems;
}

function checkApp(
  objects: Json[],
  expect: K8sExpectations,
  name: string,
  keys: string[],
  probes: { ready: string; live: string },
): string[] {
  const deployment = find(objects, 'Deployment', name);
  if (!deployment) return [`no Deployment ${name}`];
  const where = `Deployment/${name}`;
  const c = containers(deployment)[0];
  if (!c) return [`${where}: no container`];
  const problems: string[] = [];
  if (get(c, 'readinessProbe', 'httpGet', 'path') !== probes.ready)
    problems.push(`${where}: readinessProbe must GET ${probes.ready}`);
  if (get(c, 'livenessProbe', 'httpGet', 'path') !== probes.live)
    problems.push(`${where}: livenessProbe must GET ${probes.live}`);
  const env = containerEnv(c, objects, expect.secretKeys);
  for (const key of keys)
    if (!env.has(key)) problems.push(`${where}: ${key} is not wired (ConfigMap or Secret weft-secrets)`);
  for (const key of expect.forbiddenEnv) if (env.has(key)) problems.push(`${where}: sets ${key}, a test-only switch`);
  for (const ref of Array.isArray(c['envFrom']) ? c['envFrom'] : []) {
    const cm = get(ref, 'configMapRef', 'name');
    if (typeof cm === 'string' && !find(objects, 'ConfigMap', cm))
      problems.push(`${where}: ConfigMap ${cm} does not exist`);
  }
  return problems;
}

function checkScaledObject(so: Json, objects: Json[], expect: K8sExpectations): string[] {
  const problems: string[] = [];
  const worker = find(objects, 'Deployment', 'weft-worker');
  const c = worker ? containers(worker)[0] : undefined;
  const prefix = (c && containerEnv(c, objects, expect.secretKeys).get('REDIS_PREFIX')) ?? 'weft';
  const triggers = get(so, 'spec', 'triggers');
  const lists = new Set<string>();
  for (const t of Array.isArray(triggers) ? triggers : []) {
    if (!isObject(t) || t['type'] !== 'redis') continue;
    const listName = String(get(t, 'metadata', 'listName'));
    lists.add(listName);
    if (!get(t, 'metadata', 'address') && !get(t, 'metadata', 'addressFromEnv'))
      problems.push(`ScaledObject: trigger ${listName} has no address`);
    const auth = get(t, 'authenticationRef', 'name');
    if (typeof auth === 'string' && !find(objects, 'TriggerAuthentication', auth)) {
      problems.push(`ScaledObject: TriggerAuthentication ${auth} does not exist`);
    }
  }
  // BullMQ's waiting list is `<prefix>:<queue>:wait` (bullmq QueueKeys).
  for (const queue of expect.queues) {
    if (!lists.has(`${prefix}:${queue}:wait`))
      problems.push(`ScaledObject: no redis trigger on ${prefix}:${queue}:wait`);
  }
  for (const list of lists) {
    if (!expect.queues.some((q) => list === `${prefix}:${q}:wait`))
      problems.push(`ScaledObject: ${list} is not a waiting list of a known queue`);
  }
  for (const ta of objects.filter((o) => o['kind'] === 'TriggerAuthentication')) {
    for (const ref of [get(ta, 'spec', 'secretTargetRef')].flat()) {
      const key = get(ref, 'key');
      if (typeof key === 'string' && !expect.secretKeys.includes(key)) {
        problems.push(`TriggerAuthentication/${nameOf(ta)}: key ${key} is not in secrets.env.example`);
      }
    }
  }
  return problems;
}
