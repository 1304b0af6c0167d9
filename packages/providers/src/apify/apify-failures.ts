import { NodeFailure } from '@weft/nodes';
import { ApifyApiError } from 'apify-client';
import { httpFailure, providerWords, unansweredFailure } from '../http-failure';

/**
 * A failed Apify API call as the run reports it. The SDK has already retried
 * what is worth retrying (429, 5xx, network failures), so what reaches here is
 * final. An abort is returned as is: the engine tells cancellation from timeout.
 */
export function apifyFailure(err: unknown, signal: AbortSignal, nodeId: string, credentialSource: string): unknown {
  if (signal.aborted || err instanceof NodeFailure) return err;
  if (!(err instanceof ApifyApiError)) return unansweredFailure(err, nodeId, 'Apify');
  const status = err.statusCode;
  if (status === 402) {
    return new NodeFailure(
      'provider_error',
      `Node '${nodeId}': the Apify account cannot pay for the run: ${providerWords(err.message)}`,
    );
  }
  // Apify's own words describe the request (an actor, an input), never the token.
  return httpFailure({ status, nodeId, provider: 'Apify', credentialSource, said: err.message });
}
