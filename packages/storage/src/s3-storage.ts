import http from 'node:http';
import https from 'node:https';
import { HeadBucketCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { createObjectReader, type ObjectReader } from './object-reader';
import { STORE_IDLE_TIMEOUT_MS } from './plain-http';

export interface StorageConfig {
  endpoint?: string;
  /**
   * The endpoint clients outside the deployment reach the same store on, for
   * presigned URLs (e.g. http://localhost:9000 when the servers use http://minio:9000
   * inside a compose network). Default: `endpoint`.
   */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /**
   * How long a request to the store may go without progress (no connection,
   * no answer, a body that stopped flowing) before it fails as the store
   * being unavailable. Default STORE_IDLE_TIMEOUT_MS.
   */
  idleTimeoutMs?: number;
}

export interface Storage {
  client: S3Client;
  bucket: string;
  /** What the client was built from (presigning builds URLs from it). */
  config: StorageConfig;
  /** StorageConfig.idleTimeoutMs, resolved. */
  idleTimeoutMs: number;
  /** Keep-alive agents of the plain requests to presigned URLs (plain-http.ts), for http: and https: endpoints. */
  agents: { http: http.Agent; https: https.Agent };
  /** Object reads (openObject), on undici's connections (object-reader.ts). */
  reader: ObjectReader;
  /** Resolves when the bucket answers; used by readiness probes. */
  ping(): Promise<void>;
  close(): void;
}

export function createStorage(config: StorageConfig): Storage {
  const idleTimeoutMs = config.idleTimeoutMs ?? STORE_IDLE_TIMEOUT_MS;
  const clientConfig: S3ClientConfig = {
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // A storage outage should fail requests fast rather than hold sockets.
    maxAttempts: 2,
    // A store that stops answering without closing (a partition) fails the
    // call instead of holding it until TCP gives up.
    requestHandler: { connectionTimeout: idleTimeoutMs, socketTimeout: idleTimeoutMs },
    // The SDK's default CRC trailers (aws-chunked bodies) are not understood by
    // every S3-compatible store (s3rver keeps the framing in the object), so
    // checksums are sent only where the operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (config.endpoint) clientConfig.endpoint = config.endpoint;
  const client = new S3Client(clientConfig);
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const reader = createObjectReader({ timeoutMs: idleTimeoutMs });
  const bucket = config.bucket;
  return {
    client,
    bucket,
    config,
    idleTimeoutMs,
    async ping() {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    },
    agents,
    reader,
    close() {
      client.destroy();
      reader.close();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Maps the S3_* settings every process shares onto a StorageConfig. */
export function storageConfigFromEnv(env: {
  S3_ENDPOINT?: string | undefined;
  S3_PUBLIC_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
  S3_FORCE_PATH_STYLE: boolean;
  S3_IDLE_TIMEOUT_MS?: number;
}): StorageConfig {
  const config: StorageConfig = {
    region: env.S3_REGION,
    bucket: env.S3_BUCKET,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
  };
  if (env.S3_IDLE_TIMEOUT_MS !== undefined) config.idleTimeoutMs = env.S3_IDLE_TIMEOUT_MS;
  if (env.S3_ENDPOINT) config.endpoint = env.S3_ENDPOINT;
  if (env.S3_PUBLIC_ENDPOINT) config.publicEndpoint = env.S3_PUBLIC_ENDPOINT;
  return config;
}
