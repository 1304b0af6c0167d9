import { NodeFailure, refusalOf } from '@weft/nodes';
import type { ApiError } from 'replicate';
import { httpFailure, unansweredFailure } from '../http-failure';

// Replicate answers errors as problem JSON ({title, detail, status}); the SDK
// throws an ApiError whose message quotes the response's text after the URL.

/** What Replicate said, from its problem JSON's `detail` (else its `title`). */
export function replicateSaid(text: string): string | undefined {
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown };
    const said = typeof problem.detail === 'string' ? problem.detail : problem.title;
    if (typeof said !== 'string' || said === '') return undefined;
    return said;
  } catch {
    return undefined;
  }
}

const isApiError = (err: unknown): err is ApiError =>
  err instanceof Error && err.name === 'ApiError' && (err as Partial<ApiError>).response instanceof Response;

/** The problem JSON of an ApiError's message: `Request to <url> failed with status <n> <text>: <body>.` */
const bodyOf = (err: ApiError) => /failed with status \d+[^:]*: ([\s\S]*)\.$/.exec(err.message)?.[1] ?? '';

/**
 * A failed call as the run reports it. Retries of 429 and 5xx are spent by
 * then (replicate-retry.ts). An abort is returned as is: the engine tells
 * cancellation from timeout.
 */
export function replicateFailure(err: unknown, nodeId: string, credentialSource: string): unknown {
  if (err instanceof NodeFailure) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (!isApiError(err)) {
    if (refusalOf(err) || err instanceof TypeError) return unansweredFailure(err, nodeId, 'the provider');
    return err;
  }
  return httpFailure({
    status: err.response.status,
    nodeId,
    provider: 'the provider',
    credentialSource,
    said: replicateSaid(bodyOf(err)),
  });
}
