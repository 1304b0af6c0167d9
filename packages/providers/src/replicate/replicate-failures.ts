import { NodeFailure, refusalOf } from '@weft/nodes';
import type { ApiError } from 'replicate';

// Replicate answers errors as problem JSON ({title, detail, status}); the SDK
// throws an ApiError whose message quotes the response's text after the URL.

/** What Replicate said, short, from its problem JSON's `detail` (else its `title`). */
export function replicateSaid(text: string): string | undefined {
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown };
    const said = typeof problem.detail === 'string' ? problem.detail : problem.title;
    if (typeof said !== 'string' || said === '') return undefined;
    return said.length > 300 ? `${said.slice(0, 300)}…` : said;
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
    if (!(err instanceof Error)) return err;
    const refused = refusalOf(err);
    if (refused) {
      return new NodeFailure('invalid_input', `Node '${nodeId}': the provider's base URL: ${refused.message}`);
    }
    if (err instanceof TypeError) {
      return new NodeFailure('provider_error', `Node '${nodeId}': the provider could not be reached`);
    }
    return err;
  }
  const status = err.response.status;
  if (status === 401 || status === 403) {
    // Never the provider's words: a 401 may quote the token it was given.
    return new NodeFailure(
      'provider_auth_required',
      `Node '${nodeId}': the provider refused the credentials (HTTP ${status}); check ${credentialSource}`,
    );
  }
  const said = replicateSaid(bodyOf(err));
  const why = said ? `: ${said}` : '';
  if (status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
    return new NodeFailure(
      'invalid_input',
      `Node '${nodeId}': the provider refused the request (HTTP ${status})${why}`,
    );
  }
  return new NodeFailure('provider_error', `Node '${nodeId}': the provider failed (HTTP ${status})${why}`);
}
