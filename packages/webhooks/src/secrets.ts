import type { Keyring } from '@weft/credentials';
import type { Pool } from 'pg';
import { newSigningSecret } from './signing';

// Signing secrets are sealed at rest like provider credentials (CREDENTIALS_KEY),
// each bound to its row: a sealed value copied elsewhere does not open.

export const organizationContext = (orgId: string) => `webhooks/${orgId}`;
export const endpointContext = (orgId: string, endpointId: string) => `webhooks/${orgId}/${endpointId}`;

export interface SealedRow {
  key_version: number;
  sealed: Buffer;
}

export const openSecret = (keyring: Keyring, row: SealedRow, context: string) =>
  keyring.open({ keyVersion: row.key_version, sealed: row.sealed }, context);

const READ = {
  name: 'webhooks_org_secret_v1',
  text: 'SELECT key_version, sealed FROM organization_webhook_secrets WHERE organization_id = $1',
};

/**
 * The secret the organization's runs' own webhooks are signed with, made on
 * first need: by GET /webhooks/secret or by the first delivery, whichever
 * comes first (concurrent first needs keep one).
 */
export async function organizationSecret(pool: Pool, keyring: Keyring, orgId: string): Promise<string> {
  let row = (await pool.query<SealedRow>({ ...READ, values: [orgId] })).rows[0];
  if (!row) {
    const sealed = keyring.seal(newSigningSecret(), organizationContext(orgId));
    await pool.query({
      name: 'webhooks_org_secret_create_v1',
      text: `INSERT INTO organization_webhook_secrets (organization_id, key_version, sealed) VALUES ($1, $2, $3)
             ON CONFLICT (organization_id) DO NOTHING`,
      values: [orgId, sealed.keyVersion, sealed.sealed],
    });
    row = (await pool.query<SealedRow>({ ...READ, values: [orgId] })).rows[0]!;
  }
  return openSecret(keyring, row, organizationContext(orgId));
}

/** Re-seals every webhook secret sealed under an older key version (rotation); returns how many. */
export async function resealWebhookSecrets(pool: Pool, keyring: Keyring): Promise<number> {
  let count = 0;
  const orgs = await pool.query<SealedRow & { organization_id: string }>(
    'SELECT organization_id, key_version, sealed FROM organization_webhook_secrets WHERE key_version <> $1',
    [keyring.current],
  );
  for (const row of orgs.rows) {
    const context = organizationContext(row.organization_id);
    const sealed = keyring.seal(openSecret(keyring, row, context), context);
    await pool.query(
      'UPDATE organization_webhook_secrets SET key_version = $2, sealed = $3 WHERE organization_id = $1',
      [row.organization_id, sealed.keyVersion, sealed.sealed],
    );
    count++;
  }
  const endpoints = await pool.query<SealedRow & { id: string; organization_id: string }>(
    'SELECT id, organization_id, key_version, sealed FROM webhook_endpoints WHERE key_version <> $1',
    [keyring.current],
  );
  for (const row of endpoints.rows) {
    const context = endpointContext(row.organization_id, row.id);
    const sealed = keyring.seal(openSecret(keyring, row, context), context);
    await pool.query('UPDATE webhook_endpoints SET key_version = $2, sealed = $3 WHERE id = $1', [
      row.id,
      sealed.keyVersion,
      sealed.sealed,
    ]);
    count++;
  }
  return count;
}
