import { createHttpClient, HttpError } from '../http-client';
import type { DevState } from './dev-state';

const ORGANIZATION_NAME = 'Development';
const STARTING_CREDITS = 10_000;

interface CreatedOrganization {
  id: string;
  name: string;
  credits: number;
  api_key: string;
}

/**
 * Makes sure `state` holds a working API key of a development organization,
 * creating the organization through the gateway's admin API when there is
 * none or the stored key is refused (the database was reset): the launcher
 * itself never writes to the database. Updates `state` in place.
 */
export async function ensureDevOrganization(
  baseUrl: string,
  adminToken: string,
  state: DevState,
): Promise<{ apiKey: string; created: boolean }> {
  if (state.organization && (await isKeyAccepted(baseUrl, state.organization.apiKey))) {
    return { apiKey: state.organization.apiKey, created: false };
  }

  const admin = createHttpClient({ baseUrl, headers: { authorization: `Bearer ${adminToken}` } });
  const created = await admin.post<CreatedOrganization>('/admin/organizations', {
    name: ORGANIZATION_NAME,
    credits: STARTING_CREDITS,
  });
  state.organization = { id: created.id, name: created.name, apiKey: created.api_key };
  // Whatever was published belonged to the old organization.
  state.published = {};
  return { apiKey: created.api_key, created: true };
}

async function isKeyAccepted(baseUrl: string, apiKey: string): Promise<boolean> {
  try {
    await createHttpClient({ baseUrl, headers: { 'x-api-key': apiKey } }).get('/agents');
    return true;
  } catch (err) {
    if (err instanceof HttpError && (err.status === 401 || err.status === 403)) return false;
    throw err;
  }
}
