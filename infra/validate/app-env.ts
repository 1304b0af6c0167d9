import {
  databaseEnvShape,
  observabilityEnvShape,
  orgSharesEnvShape,
  otelEnvShape,
  redisEnvShape,
  s3EnvShape,
} from '@weft/config';
import { credentialsEnvShape } from '@weft/credentials';
import { priceTableEnvShape, providerRouteEnvShape } from '@weft/providers';
import { webhookEnvShape } from '@weft/webhooks';
import { PATHS, readText } from './files';

// The environment variables each process reads, taken from its config.ts (the
// only place an app reads process.env), so a new setting that is not wired
// into docker-compose.yml and the Kubernetes ConfigMap/Secret fails CI.

/** Test-only switches: they must never be set in a deployment. */
export const FORBIDDEN_IN_DEPLOYMENT = ['RUN_FAULT_EXIT_AFTER_COMMIT'];

/** Shapes spread into a config schema (`...s3EnvShape`, `...otelEnvShape('weft-gateway')`), by name. */
const SHARED_SHAPES: Record<string, string[]> = {
  databaseEnvShape: Object.keys(databaseEnvShape),
  s3EnvShape: Object.keys(s3EnvShape),
  redisEnvShape: Object.keys(redisEnvShape),
  orgSharesEnvShape: Object.keys(orgSharesEnvShape),
  observabilityEnvShape: Object.keys(observabilityEnvShape),
  otelEnvShape: Object.keys(otelEnvShape('any')),
  providerRouteEnvShape: Object.keys(providerRouteEnvShape),
  priceTableEnvShape: Object.keys(priceTableEnvShape),
  credentialsEnvShape: Object.keys(credentialsEnvShape),
  webhookEnvShape: Object.keys(webhookEnvShape),
};

/**
 * Keys of the `z.object({...})` in a config.ts: `NAME:` at the start of a line
 * (the files keep one setting per line, prettier-formatted) and spreads of
 * the shared shapes (`...shape,` or `...shape(args),`).
 */
export function envKeysOf(source: string, file: string): string[] {
  const keys = new Set<string>();
  for (const match of source.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)) keys.add(match[1]!);
  for (const match of source.matchAll(/^\s+\.\.\.([A-Za-z]\w*)(?:\([^)]*\))?,/gm)) {
    const shape = SHARED_SHAPES[match[1]!];
    if (!shape) throw new Error(`${file}: unknown spread ...${match[1]}: add it to infra/validate/app-env.ts`);
    for (const key of shape) keys.add(key);
  }
  for (const match of source.matchAll(/^\s+\.\.\.(.*)$/gm)) {
    if (!/^[A-Za-z]\w*(\([^)]*\))?,$/.test(match[1]!.trim()))
      throw new Error(`${file}: cannot read the spread ...${match[1]}`);
  }
  if (keys.size === 0) throw new Error(`${file}: no settings found; has its shape changed?`);
  return [...keys].sort();
}

export interface AppEnv {
  gateway: string[];
  worker: string[];
}

export function readAppEnv(): AppEnv {
  return {
    gateway: envKeysOf(readText(PATHS.gatewayConfig), PATHS.gatewayConfig),
    worker: envKeysOf(readText(PATHS.workerConfig), PATHS.workerConfig),
  };
}

/** The default of a numeric setting, e.g. WORKER_SHUTDOWN_GRACE_SECONDS, from `NAME: envInt(...).default(30)`. */
export function numericDefaultOf(source: string, key: string): number | undefined {
  const match = new RegExp(`^\\s+${key}:.*\\.default\\(([\\d_]+)\\)`, 'm').exec(source);
  return match ? Number(match[1]!.replace(/_/g, '')) : undefined;
}
