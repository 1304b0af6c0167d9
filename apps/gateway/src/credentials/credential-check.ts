import { invalid, ServiceUnavailableError, type ValidationError } from '@weft/errors';
import { refusalOf } from '@weft/nodes';
import type { DeploymentRoutes, ProviderCredential } from '@weft/providers';

/** How long a provider has to answer the check of a credential being stored. */
const CHECK_TIMEOUT_MS = 15_000;

/** The HTTP status an SDK's error carries, whichever SDK threw it. */
function statusOf(err: unknown): number | undefined {
  const e = err as
    | {
        status?: unknown;
        statusCode?: unknown;
        response?: { status?: unknown };
        $metadata?: { httpStatusCode?: unknown };
      }
    | undefined;
  const status = e?.status ?? e?.statusCode ?? e?.response?.status ?? e?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Checks a credential with a cheap call to its provider before it is stored.
 * A key the provider refuses, a base URL the outbound rules refuse or that
 * answers nothing useful is the caller's to fix: 422 saying which field.
 */
export async function checkCredential(
  routes: DeploymentRoutes,
  provider: string,
  credential: ProviderCredential,
): Promise<void> {
  try {
    await routes.verify(provider, credential, AbortSignal.timeout(CHECK_TIMEOUT_MS));
  } catch (err) {
    throw refusal(provider, credential, err);
  }
}

function refusal(
  provider: string,
  credential: ProviderCredential,
  err: unknown,
): ValidationError | ServiceUnavailableError {
  const refused = refusalOf(err);
  if (refused) return invalid(['body', 'base_url'], `base_url may not be reached: ${refused.message}`, 'value_error');
  const status = statusOf(err);
  if (status === 401 || status === 403) {
    return invalid(['body', 'secret'], `${provider} refused the credential (HTTP ${status})`, 'credential_refused');
  }
  if (status !== undefined) {
    return invalid(
      ['body', credential.baseURL ? 'base_url' : 'secret'],
      `${provider} did not accept the credential check (HTTP ${status})`,
      'credential_refused',
    );
  }
  if (credential.baseURL) {
    return invalid(
      ['body', 'base_url'],
      `${provider} could not be reached at base_url to check the credential`,
      'value_error',
    );
  }
  return new ServiceUnavailableError(`${provider} could not be reached to check the credential; retry later`);
}
