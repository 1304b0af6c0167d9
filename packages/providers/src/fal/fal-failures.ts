import { ApiError, ValidationError } from '@fal-ai/client';
import { NodeFailure, refusalOf } from '@weft/nodes';
import { httpFailure, providerWords, unansweredFailure } from '../http-failure';

// fal's answers as the run reports them. The SDK has already retried what is
// worth retrying (429, 502-504; 500 too for status polls), so what reaches
// here is final. An abort is returned as is: the engine tells cancellation
// from timeout. fal reports a request its app refused as 422 with a list of
// {loc, msg, type} (`content_policy_violation` among the types).

/** The field errors of a 422, as "prompt: field required; ...". */
function fieldErrors(err: ValidationError): string {
  const said = err.fieldErrors.map((e) => {
    const where = e.loc.filter((part) => part !== 'body').join('.');
    return where ? `${where}: ${e.msg}` : e.msg;
  });
  return said.join('; ') || err.message;
}

/** What fal said of an error other than a 401/403 (its `detail`, else the status text). */
function detailOf(err: ApiError<unknown>): string {
  const detail = (err.body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  return err.message;
}

export function falFailure(err: unknown, nodeId: string, credentialSource: string): unknown {
  if (!(err instanceof ApiError)) {
    if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return err;
    if (refusalOf(err) || err instanceof TypeError) return unansweredFailure(err, nodeId, 'the provider');
    return err;
  }
  // The SDK throws a ValidationError for a 422 only, so never for a refused credential.
  const contentPolicy =
    err instanceof ValidationError && err.fieldErrors.some((e) => e.type === 'content_policy_violation');
  if (err instanceof ValidationError && !contentPolicy) {
    return new NodeFailure(
      'invalid_input',
      `Node '${nodeId}': the provider refused the input: ${providerWords(fieldErrors(err))}`,
    );
  }
  return httpFailure({
    status: err.status,
    nodeId,
    provider: 'the provider',
    credentialSource,
    said: err instanceof ValidationError ? fieldErrors(err) : detailOf(err),
    contentPolicy,
    refusalNamesStatus: false,
  });
}
