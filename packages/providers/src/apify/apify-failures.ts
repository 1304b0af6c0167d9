import { NodeFailure, refusalOf } from '@weft/nodes';
import { ApifyApiError } from 'apify-client';

/** Apify's own words, short: they describe the request (an actor, an input), never the token. */
const said = (err: ApifyApiError) => (err.message.length > 300 ? `${err.message.slice(0, 300)}…` : err.message);

/**
 * A failed Apify API call as the run reports it. The SDK has already retried
 * what is worth retrying (429, 5xx, network failures), so what reaches here is
 * final. An abort is returned as is: the engine tells cancellation from timeout.
 */
export function apifyFailure(err: unknown, signal: AbortSignal, nodeId: string, credentialSource: string): unknown {
  if (signal.aborted || err instanceof NodeFailure) return err;
  if (!(err instanceof ApifyApiError)) {
    const refused = refusalOf(err);
    if (refused)
      return new NodeFailure('invalid_input', `Node '${nodeId}': the provider's base URL: ${refused.message}`);
    return new NodeFailure('provider_error', `Node '${nodeId}': Apify could not be reached`);
  }
  const status = err.statusCode;
  if (status === 401 || status === 403) {
    // Never Apify's message for these: it is the credential's business, not the flow's.
    return new NodeFailure(
      'provider_auth_required',
      `Node '${nodeId}': Apify refused the credentials (HTTP ${status}); check ${credentialSource}`,
    );
  }
  if (status === 402) {
    return new NodeFailure(
      'provider_error',
      `Node '${nodeId}': the Apify account cannot pay for the run: ${said(err)}`,
    );
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new NodeFailure(
      'invalid_input',
      `Node '${nodeId}': Apify refused the request (HTTP ${status}): ${said(err)}`,
    );
  }
  return new NodeFailure('provider_error', `Node '${nodeId}': Apify failed (HTTP ${status}): ${said(err)}`);
}
