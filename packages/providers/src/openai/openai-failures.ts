import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { NodeFailure, refusalOf } from '@weft/nodes';

// gpt-image models refuse with `moderation_blocked`, chat and DALL·E with the others.
const CONTENT_POLICY_CODES = new Set(['content_policy_violation', 'content_filter', 'moderation_blocked']);

/** The provider's own words, short: its messages describe the request, never our credentials (401s aside). */
const said = (err: APIError) => (err.message.length > 300 ? `${err.message.slice(0, 300)}…` : err.message);

/**
 * A failed call as the run reports it. The SDK has already retried what is
 * worth retrying (429, 5xx, connection failures), so what reaches here is
 * final. An abort is returned as is: the engine tells cancellation from timeout.
 */
export function openAIFailure(err: unknown, nodeId: string, credentialSource = 'OPENAI_API_KEY'): unknown {
  if (err instanceof APIUserAbortError || !(err instanceof APIError)) return err;
  if (err instanceof APIConnectionError) {
    const refused = refusalOf(err);
    if (refused)
      return new NodeFailure('invalid_input', `Node '${nodeId}': the provider's base URL: ${refused.message}`);
    return new NodeFailure('provider_error', `Node '${nodeId}': the provider could not be reached`);
  }
  const status = err.status ?? 0;
  if (status === 401 || status === 403) {
    // Never the provider's message: a 401 quotes part of the key it was given.
    return new NodeFailure(
      'provider_auth_required',
      `Node '${nodeId}': the provider refused the credentials (HTTP ${status}); check ${credentialSource}`,
    );
  }
  if (status >= 400 && status < 500 && CONTENT_POLICY_CODES.has(err.code ?? '')) {
    return new NodeFailure('content_policy', `Node '${nodeId}': the provider refused the content: ${said(err)}`);
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
    return new NodeFailure('invalid_input', `Node '${nodeId}': the provider refused the request: ${said(err)}`);
  }
  return new NodeFailure('provider_error', `Node '${nodeId}': the provider failed (HTTP ${status}): ${said(err)}`);
}
