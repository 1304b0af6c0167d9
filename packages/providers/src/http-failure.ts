import { NodeFailure, refusalOf } from '@weft/nodes';

/** A provider's failed HTTP answer, as its adapter read it from its SDK's error. */
export interface FailedAnswer {
  status: number;
  nodeId: string;
  /** The provider as the message names it: 'the provider', 'Apify'. */
  provider: string;
  /** Where the credential came from, which a refused credential tells the user to check. */
  credentialSource: string;
  /** The provider's own words on the failure, uncut; undefined when it gave none. */
  said?: string | undefined;
  /** The provider refused the request's content under its policy. */
  contentPolicy?: boolean;
  /** The provider's code for that refusal, named in its message (ElevenLabs' `bad_prompt`). */
  policyCode?: string | undefined;
  /** Whether a refused request's message names the status; OpenAI's and fal's never have. */
  refusalNamesStatus?: boolean;
}

/** The provider's words as a message quotes them: they describe the request, so they are shown, but short. */
export const providerWords = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/**
 * A failed HTTP answer as the run reports it. The SDKs have retried what is
 * worth retrying by then, so the answer is final: a 4xx is the flow's fault
 * (invalid_input) unless it is about the moment rather than the request
 * (408, 409, 429), which, like a 5xx, is the provider's (provider_error).
 */
export function httpFailure(answer: FailedAnswer): NodeFailure {
  const { status, nodeId, provider } = answer;
  if (status === 401 || status === 403) {
    // Never the provider's words: a refusal may quote the key it was given.
    return new NodeFailure(
      'provider_auth_required',
      `Node '${nodeId}': ${provider} refused the credentials (HTTP ${status}); check ${answer.credentialSource}`,
    );
  }
  const said = answer.said === undefined ? '' : `: ${providerWords(answer.said)}`;
  const refused = status >= 400 && status < 500;
  if (refused && answer.contentPolicy) {
    const code = answer.policyCode ? ` (${answer.policyCode})` : '';
    return new NodeFailure('content_policy', `Node '${nodeId}': ${provider} refused the content${code}${said}`);
  }
  if (refused && status !== 408 && status !== 409 && status !== 429) {
    const named = answer.refusalNamesStatus === false ? '' : ` (HTTP ${status})`;
    return new NodeFailure('invalid_input', `Node '${nodeId}': ${provider} refused the request${named}${said}`);
  }
  return new NodeFailure('provider_error', `Node '${nodeId}': ${provider} failed (HTTP ${status})${said}`);
}

/**
 * A call that got no HTTP answer. A base URL the outbound rules refused is the
 * flow's input (an organization's setting); any other is the provider's.
 */
export function unansweredFailure(err: unknown, nodeId: string, provider: string): NodeFailure {
  const refused = refusalOf(err);
  if (refused) return new NodeFailure('invalid_input', `Node '${nodeId}': the provider's base URL: ${refused.message}`);
  return new NodeFailure('provider_error', `Node '${nodeId}': ${provider} could not be reached`);
}
