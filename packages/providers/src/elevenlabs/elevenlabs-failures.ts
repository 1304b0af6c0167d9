import { ElevenLabsError, ElevenLabsTimeoutError } from '@elevenlabs/elevenlabs-js';
import { NodeFailure } from '@weft/nodes';
import { httpFailure, unansweredFailure } from '../http-failure';

/** `detail.status` codes of refusals of the content itself (the music API's copyrighted prompts). */
const CONTENT_POLICY_CODES = new Set(['bad_prompt', 'bad_composition_plan', 'content_against_policy']);

/** ElevenLabs' error body: `{detail: {status, message}}`, or FastAPI's `{detail: [{loc, msg}]}` for a 422. */
function saidBy(body: unknown): { code?: string; message?: string } {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return { message: detail };
  if (Array.isArray(detail)) {
    const first = detail[0] as { loc?: unknown[]; msg?: string } | undefined;
    const where = Array.isArray(first?.loc) ? first.loc.filter((l) => l !== 'body').join('.') : '';
    return first?.msg ? { message: where ? `${where}: ${first.msg}` : first.msg } : {};
  }
  if (detail && typeof detail === 'object') {
    const { status, message } = detail as { status?: unknown; message?: unknown };
    return {
      ...(typeof status === 'string' ? { code: status } : {}),
      ...(typeof message === 'string' ? { message } : {}),
    };
  }
  return {};
}

/**
 * A failed SDK call as the run reports it. The SDK has retried 408, 429 and
 * 5xx already (honouring Retry-After), so what reaches here is final. Once
 * the node's signal aborted, the error is returned as it is: the engine tells
 * cancellation from timeout itself.
 */
export function elevenLabsFailure(
  err: unknown,
  nodeId: string,
  credentialSource: string,
  signal: AbortSignal,
): unknown {
  if (signal.aborted || err instanceof NodeFailure) return err;
  if (err instanceof ElevenLabsTimeoutError) {
    return new NodeFailure('provider_error', `Node '${nodeId}': the provider did not answer in time`);
  }
  if (!(err instanceof ElevenLabsError)) return err;
  const status = err.statusCode;
  if (status === undefined) {
    // No HTTP answer: the connection failed, or the organization's base URL was refused.
    return unansweredFailure(err.cause ?? err, nodeId, 'the provider');
  }
  const { code, message } = saidBy(err.body);
  if (status === 401 && code === 'quota_exceeded') {
    // ElevenLabs answers an exhausted quota with 401 too: the key is fine, the account is not.
    return new NodeFailure(
      'provider_error',
      `Node '${nodeId}': the provider's quota for ${credentialSource} is exhausted (HTTP 401 quota_exceeded)`,
    );
  }
  // Its messages describe the request (401s aside, which are never quoted).
  return httpFailure({
    status,
    nodeId,
    provider: 'the provider',
    credentialSource,
    said: message || undefined,
    contentPolicy: code !== undefined && CONTENT_POLICY_CODES.has(code),
    policyCode: code,
  });
}
