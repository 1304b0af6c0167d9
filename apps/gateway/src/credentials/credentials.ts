import type { CredentialStore, CredentialRecord } from '@weft/credentials';
import type { z } from '@weft/contracts';
import type { CreateCredentialBody } from '@weft/contracts';
import { invalid, NotFoundError, ServiceUnavailableError } from '@weft/errors';
import type { DeploymentRoutes } from '@weft/providers';
import { checkCredential } from './credential-check';

type CreateBody = z.output<typeof CreateCredentialBody>;

/** What an organization may store at most: credentials are few, and each is read per provider call. */
const MAX_PER_ORGANIZATION = 100;

export interface CredentialDeps {
  credentials: CredentialStore;
  nodeRoutes: DeploymentRoutes;
}

function storeOf(deps: CredentialDeps): CredentialStore {
  if (!deps.credentials.sealing) {
    throw new ServiceUnavailableError(
      'This deployment stores no credentials: its operator has not set CREDENTIALS_KEY',
    );
  }
  return deps.credentials;
}

/** Checks the credential with its provider, then stores it sealed. */
export async function createCredential(
  deps: CredentialDeps,
  organizationId: string,
  body: CreateBody,
): Promise<CredentialRecord> {
  const store = storeOf(deps);
  if (body.provider === 's3' && !body.settings) {
    throw invalid(['body', 'settings'], 'settings (bucket, access_key_id, ...) are required for s3', 'missing');
  }
  if (body.provider !== 's3' && body.settings) {
    throw invalid(['body', 'settings'], `settings are for s3 credentials, not ${body.provider}`, 'extra_forbidden');
  }
  if (!deps.nodeRoutes.adapters.has(body.provider)) {
    throw invalid(['body', 'provider'], `No adapter of this version serves ${body.provider}`, 'enum');
  }
  if ((await store.list(organizationId)).length >= MAX_PER_ORGANIZATION) {
    throw invalid(
      ['body'],
      `An organization stores at most ${MAX_PER_ORGANIZATION} credentials; delete one first`,
      'too_many',
    );
  }
  const input = {
    provider: body.provider,
    name: body.name,
    secret: body.secret,
    baseURL: body.base_url,
    settings: body.settings,
  };
  const id = store.newId();
  await checkCredential(deps.nodeRoutes, body.provider, store.unsaved(id, input));
  return store.create(organizationId, id, input);
}

export async function listCredentials(deps: CredentialDeps, organizationId: string): Promise<CredentialRecord[]> {
  return deps.credentials.list(organizationId);
}

export async function getCredential(
  deps: CredentialDeps,
  organizationId: string,
  id: string,
): Promise<CredentialRecord> {
  const found = await deps.credentials.get(organizationId, id);
  if (!found) throw new NotFoundError('Credential');
  return found;
}

export async function deleteCredential(deps: CredentialDeps, organizationId: string, id: string): Promise<void> {
  if (!(await deps.credentials.delete(organizationId, id))) throw new NotFoundError('Credential');
}
