// s3rver has no types of its own; the reference makes ours visible to every
// project that compiles this file, not only to packages/devstack.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./s3rver.d.ts" />
import fs from 'node:fs';
import S3rver from 's3rver';
import { DevstackError, PortInUseError } from '../errors';
import { isPortListening, resolvePort } from '../tcp';
import { noStop, silent, LOCALHOST, type EnsureServiceOptions, type ServiceHandle } from '../service-handle';
import { probeS3 } from './probe-s3';
import { DEFAULT_S3_REGION, S3RVER_CREDENTIALS, type S3Settings } from './s3-settings';

export const DEFAULT_S3_PORT = 9000;

export interface EnsureS3Options extends EnsureServiceOptions {
  /** S3_ENDPOINT, when the user set one: used as is; nothing is probed or started. */
  endpoint?: string;
  region?: string;
  /** Credentials for the given endpoint or the probed local one; default s3rver's S3RVER/S3RVER. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  /**
   * Whether a store already on the local port is used (default true). A test
   * run says false: a store there belongs to a dev stack or a benchmark that
   * may stop in the middle of the run.
   */
  reuseRunning?: boolean;
}

export interface S3Handle extends ServiceHandle {
  settings: S3Settings;
}

/**
 * An S3 store to use: the given endpoint; else the store already on the local
 * port (MinIO, a running s3rver); else s3rver started in this process (on
 * `embeddedPort`, default the same port), keeping objects as files in `dataDir`.
 */
export async function ensureS3(options: EnsureS3Options): Promise<S3Handle> {
  const log = options.log ?? silent;
  const port = options.port ?? DEFAULT_S3_PORT;
  const settings: S3Settings = {
    endpoint: options.endpoint ?? `http://${LOCALHOST}:${port}`,
    region: options.region ?? DEFAULT_S3_REGION,
    accessKeyId: options.accessKeyId ?? S3RVER_CREDENTIALS.accessKeyId,
    secretAccessKey: options.secretAccessKey ?? S3RVER_CREDENTIALS.secretAccessKey,
    forcePathStyle: options.forcePathStyle ?? true,
  };
  if (options.endpoint) return { settings, source: 'env', stop: noStop };

  if (options.reuseRunning !== false && (await isPortListening(port))) {
    try {
      await probeS3(settings);
    } catch (err) {
      throw new PortInUseError(
        port,
        `an S3 store accepting access key ${settings.accessKeyId}`,
        'Stop what listens there, or set S3_ENDPOINT (and S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY) to the store to use.',
        err,
      );
    }
    log(`s3: using the store already running on ${LOCALHOST}:${port}`);
    return { settings, source: 'local', stop: noStop };
  }

  if (settings.accessKeyId !== S3RVER_CREDENTIALS.accessKeyId) {
    throw new DevstackError(
      `The embedded S3 store (s3rver) only accepts access key id ${S3RVER_CREDENTIALS.accessKeyId}, ` +
        `not ${settings.accessKeyId}. Unset S3_ACCESS_KEY_ID, or set S3_ENDPOINT to your own store.`,
    );
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const embeddedPort = await resolvePort(options.embeddedPort ?? port);
  const server = new S3rver({ address: LOCALHOST, port: embeddedPort, directory: options.dataDir, silent: true });
  await server.run();
  log(`s3: started s3rver on ${LOCALHOST}:${embeddedPort} (objects in ${options.dataDir})`);
  return {
    settings: { ...settings, endpoint: `http://${LOCALHOST}:${embeddedPort}` },
    source: 'embedded',
    async stop() {
      await server.close();
      log('s3: stopped');
    },
  };
}
