import http from 'node:http';
import https from 'node:https';
import type { Storage } from './s3-storage';

// Requests to the store that go as plain HTTP to a presigned URL instead of
// through the SDK (single-request writes here, reads in object-reader.ts):
// the SDK runs its whole middleware stack for every call, which on a small
// file costs more CPU than moving its bytes (bench:assets). Here: the
// writes' keep-alive agents, the idle timeout reads and writes share, and
// errors shaped like the SDK's.

/** Idle for this long (no answer, or a body that stopped flowing): the store is unavailable (S3_IDLE_TIMEOUT_MS). */
export const STORE_IDLE_TIMEOUT_MS = 30_000;

/** A request to a presigned URL on the storage's keep-alive agents, failing as the SDK would. */
export function requestStore(
  storage: Storage,
  url: URL,
  options: { method: 'GET' | 'PUT'; headers: Record<string, string>; signal?: AbortSignal },
  what: string,
): http.ClientRequest {
  const secure = url.protocol === 'https:';
  const req = (secure ? https : http).request(url, {
    method: options.method,
    headers: options.headers,
    agent: secure ? storage.agents.https : storage.agents.http,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  req.setTimeout(storage.idleTimeoutMs, () =>
    req.destroy(Object.assign(new Error(`${what} timed out`), { name: 'TimeoutError' })),
  );
  return req;
}

/** An S3 error answer, shaped like the SDK's service exceptions (errors.ts tells them apart the same way). */
export class StorageHttpError extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(status: number, code: string | undefined) {
    super(`S3 answered ${status}${code ? ` ${code}` : ''}`);
    this.name = code ?? (status === 404 ? 'NoSuchKey' : status === 416 ? 'InvalidRange' : 'S3Error');
    this.$metadata = { httpStatusCode: status };
  }
}

/** The error an S3 error answer stands for: its status, and the `<Code>` of its XML body (read up to 64 KiB). */
export async function storageHttpError(status: number, body: AsyncIterable<unknown>): Promise<StorageHttpError> {
  let text = '';
  for await (const chunk of body) {
    if (text.length < 64 * 1024) text += String(chunk);
  }
  return new StorageHttpError(status, /<Code>([^<]+)<\/Code>/.exec(text)?.[1]);
}
