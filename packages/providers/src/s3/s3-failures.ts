import { NodeFailure, refusalOf } from '@weft/nodes';

const AUTH = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'Forbidden']);

/** A failed bucket call as the run reports it; an abort is returned as is. */
export function s3Failure(err: unknown, nodeId: string, credentialSource: string, signal: AbortSignal): unknown {
  if (signal.aborted) return err;
  const refused = refusalOf(err);
  if (refused) return new NodeFailure('invalid_input', `Node '${nodeId}': the bucket's endpoint: ${refused.message}`);
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (AUTH.has(e.name ?? '') || status === 401 || status === 403) {
    return new NodeFailure(
      'provider_auth_required',
      `Node '${nodeId}': the bucket refused the credentials (${e.name ?? `HTTP ${status}`}); check ${credentialSource}`,
    );
  }
  if (e.name === 'NoSuchBucket' || e.name === 'NoSuchKey') {
    return new NodeFailure(
      'invalid_input',
      `Node '${nodeId}': ${e.name === 'NoSuchBucket' ? 'the bucket does not exist' : 'a file vanished while it was read'}`,
    );
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new NodeFailure('invalid_input', `Node '${nodeId}': the bucket refused the request (${e.name ?? status})`);
  }
  return new NodeFailure(
    'provider_error',
    `Node '${nodeId}': the bucket could not be reached or failed (${e.name ?? 'network'})`,
  );
}
