import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { httpFailure, unansweredFailure } from '../http-failure';

// gpt-image models refuse with `moderation_blocked`, chat and DALL·E with the others.
const CONTENT_POLICY_CODES = new Set(['content_policy_violation', 'content_filter', 'moderation_blocked']);

/**
 * A failed call as the run reports it. The SDK has already retried what is
 * worth retrying (429, 5xx, connection failures), so what reaches here is
 * final. An abort is returned as is: the engine tells cancellation from timeout.
 */
export function openAIFailure(err: unknown, nodeId: string, credentialSource = 'OPENAI_API_KEY'): unknown {
  if (err instanceof APIUserAbortError || !(err instanceof APIError)) return err;
  if (err instanceof APIConnectionError) return unansweredFailure(err, nodeId, 'the provider');
  return httpFailure({
    status: err.status ?? 0,
    nodeId,
    provider: 'the provider',
    credentialSource,
    // Its messages describe the request, never our credentials (401s aside, which are never quoted).
    said: err.message,
    contentPolicy: CONTENT_POLICY_CODES.has(err.code ?? ''),
    refusalNamesStatus: false,
  });
}
