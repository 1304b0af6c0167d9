import { ApiError, ValidationError } from '@fal-ai/client';
import { NodeFailure, refusalOf } from '@weft/nodes';

// fal's answers as the run reports them. The SDK has already retried what is
// worth retrying (429, 502-504; 500 too for status polls), so what reaches
// here is final. An abort is returned as is: the engine tells cancellation
// from timeout. fal reports a request its app refused as 422 with a list of
// {loc, msg, type} (`content_policy_violation` among the types).

const short = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** The field errors of a 422, as "prompt: field required; ...". */
function fieldErrors(err: ValidationError): string {
  const said = err.fieldErrors.map((e) => {
    const where = e.loc.filter((part) => part !== 'body').join('.');
    return where ? `${where}: ${e.msg}` : e.msg;
  });
  return short(said.join('; ') || err.message);
}

/** What fal said of an error other than a 401/403 (its `detail`, else the status text). */
function detailOf(err: ApiError<unknown>): string {
  const detail = (err.body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return short(detail);
  return short(err.message);
}

export function falFailure(err: unknown, nodeId: string, credentialSource: string): unknown {
  if (!(err instanceof ApiError)) {
    if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return err;
    const refused = refusalOf(err);
    if (refused)
      return new NodeFailure('invalid_input', `Node '${nodeId}': the provider's base URL: ${refused.message}`);
    if (err instanceof TypeError) {
      return new NodeFailure('provider_error', `Node '${nodeId}': the provider could not be reached`);
    }
    return err;
  }
  const status = err.status;
  if (status === 401 || status === 403) {
    // Never fal's message: a refusal may quote the key it was given.
    return new NodeFailure(
      'provider_auth_required',
      `Node '${nodeId}': the provider refused the credentials (HTTP ${status}); check ${credentialSource}`,
    );
  }
  if (err instanceof ValidationError) {
    if (err.fieldErrors.some((e) => e.type === 'content_policy_violation')) {
      return new NodeFailure(
        'content_policy',
        `Node '${nodeId}': the provider refused the content: ${fieldErrors(err)}`,
      );
    }
    return new NodeFailure('invalid_input', `Node '${nodeId}': the provider refused the input: ${fieldErrors(err)}`);
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
    return new NodeFailure('invalid_input', `Node '${nodeId}': the provider refused the request: ${detailOf(err)}`);
  }
  return new NodeFailure('provider_error', `Node '${nodeId}': the provider failed (HTTP ${status}): ${detailOf(err)}`);
}
