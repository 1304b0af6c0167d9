import path from 'node:path';
import { ConfigError } from '@weft/config';
import { assertPortFree, DevstackError } from '@weft/devstack';
import { HttpError } from '../http-client';
import { startAppProcess, type AppProcess } from './app-process';
import { formatBanner } from './banner';
import { ensureConsoleBuilt } from './console-build';
import { loadDevConfig, type DevConfig } from './dev-config';
import { ensureDevOrganization } from './dev-organization';
import { startDevServices, type DevServices } from './dev-services';
import { devStateFile, loadDevState, saveDevState } from './dev-state';
import { Lifecycle } from './lifecycle';
import { publishCatalog } from './publish-catalog';
import { waitForGateway } from './wait-for-gateway';

// `npm run dev`: the whole stack on one machine with nothing installed but
// Node. Services → migrations → the console's build → gateway + worker →
// development organization and API key (through the admin API) → example
// catalog → banner. Ctrl-C stops everything, applications first.

const log = (line: string) => process.stdout.write(`[dev]     ${line}\n`);

async function main(lifecycle: Lifecycle): Promise<void> {
  const config = loadDevConfig();
  // Both before anything starts: a taken port found by the gateway or worker
  // itself would end the stack half-started, with its error among their logs.
  await assertPortFree(
    config.PORT,
    config.HOST,
    'the gateway',
    `Stop what uses it (an earlier \`npm run dev\`?) or choose another port: PORT=${config.PORT + 1} npm run dev`,
  );
  if (config.WORKER_HTTP_PORT !== 0) {
    await assertPortFree(
      config.WORKER_HTTP_PORT,
      config.WORKER_HTTP_HOST,
      "the worker's metrics and health listener",
      'Stop what uses it (an earlier `npm run dev`?) or choose another port: ' +
        `WORKER_HTTP_PORT=${config.WORKER_HTTP_PORT + 1} npm run dev (0 picks a free one)`,
    );
  }

  const stateFile = devStateFile(config.dataDir);
  const state = loadDevState(stateFile, log);
  saveDevState(stateFile, state);

  const services = await startDevServices(config, log);
  lifecycle.add('services', services.stop);

  const adminToken = config.ADMIN_TOKEN ?? state.adminToken;
  const env = appEnvironment(config, services, {
    adminToken,
    jwtSecret: config.JWT_SECRET ?? state.jwtSecret,
    credentialsKey: config.CREDENTIALS_KEY ?? state.credentialsKey,
  });
  // Where the gateway, run from source, looks for it by default (CONSOLE_DIR).
  await ensureConsoleBuilt(config.repoRoot, path.join(config.repoRoot, 'dist', 'console'), log);
  const gateway = startAppProcess('gateway', 'apps/gateway/src/main.ts', env, config.repoRoot);
  const worker = startAppProcess('worker', 'apps/worker/src/main.ts', env, config.repoRoot);
  lifecycle.add('gateway and worker', () => Promise.all([gateway.stop(), worker.stop()]));
  stopAllWhenItExits(gateway, lifecycle);
  stopAllWhenItExits(worker, lifecycle);

  const baseUrl = `http://${displayHost(config.HOST)}:${config.PORT}`;
  await waitForGateway(baseUrl, gateway);

  const { apiKey, created } = await ensureDevOrganization(baseUrl, adminToken, state);
  if (created) log(`created the development organization ${state.organization?.id} and its API key`);
  saveDevState(stateFile, state);
  await publishCatalog(baseUrl, apiKey, path.join(config.repoRoot, 'catalog'), state, log);
  saveDevState(stateFile, state);

  process.stdout.write(formatBanner({ baseUrl, apiKey, stateFile, services: services.summary }));
}

/** The gateway's and worker's environment: the user's, with what we found or generated filled in. */
function appEnvironment(
  config: DevConfig,
  services: DevServices,
  secrets: { adminToken: string; jwtSecret: string; credentialsKey: string },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // On Node 20 the AWS SDK says once, from this process, that its releases
    // after the first week of January 2027 require Node 22
    // (docs/development.md#nodejs-versions); the gateway and worker would only repeat it.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    PORT: String(config.PORT),
    HOST: config.HOST,
    WORKER_HTTP_PORT: String(config.WORKER_HTTP_PORT),
    WORKER_HTTP_HOST: config.WORKER_HTTP_HOST,
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl ?? '',
    S3_ENDPOINT: services.s3.endpoint,
    S3_REGION: services.s3.region,
    S3_BUCKET: config.S3_BUCKET,
    S3_ACCESS_KEY_ID: services.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: services.s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: String(services.s3.forcePathStyle),
    ADMIN_TOKEN: secrets.adminToken,
    JWT_SECRET: secrets.jwtSecret,
    CREDENTIALS_KEY: secrets.credentialsKey,
  };
}

/** A stack with a dead gateway or worker is worse than no stack: stop and say so. */
function stopAllWhenItExits(app: AppProcess, lifecycle: Lifecycle): void {
  void app.exited.then((how) => {
    if (lifecycle.isStopping) return;
    log(`${app.name} exited (${how}); stopping the stack`);
    void lifecycle.stop(1);
  });
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

const lifecycle = new Lifecycle(log);
lifecycle.handleSignals();
main(lifecycle).catch((err: unknown) => {
  // Problems the user can fix get their message alone; anything else its stack too.
  const expected = err instanceof ConfigError || err instanceof DevstackError || err instanceof HttpError;
  const text = expected ? (err as Error).message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`[dev]     ${text}\n`);
  void lifecycle.stop(1);
});
